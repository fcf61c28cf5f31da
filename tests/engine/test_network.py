"""Tests for engine.network: ring/hierarchical all-reduce formulas, bandwidth helpers, properties.
(Published cases N1 and N3 are in test_workload.py with the other validation cases.)"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import network
from engine.network import InterNodeKind, IntraNodeKind


class TestRingAllReduce:
    def test_factor_is_two_n_minus_one_over_n(self):
        np.testing.assert_allclose(network.ring_allreduce_factor([1, 2, 8, 1024]), [0.0, 1.0, 1.75, 2046 / 1024])

    def test_time_is_factor_times_bytes_over_busbw_plus_latency(self):
        assert float(network.allreduce_time_s(1e9, 4, 100.0, 1e-5)) == pytest.approx(1.5 * 1e9 / 100e9 + 1e-5)

    def test_one_rank_takes_no_time_not_even_latency(self):
        assert float(network.allreduce_time_s(1e9, 1, np.nan, 1e-3)) == 0.0

    def test_busbw_from_time_inverts_time(self):
        t = network.allreduce_time_s(3e9, 16, 123.0)
        assert float(network.busbw_from_time(3e9, 16, t)) == pytest.approx(123.0)

    def test_broadcasts_over_arrays(self):
        t = network.allreduce_time_s(np.array([1e9, 2e9]), 8, np.array([[370.0], [480.0]]))
        assert t.shape == (2, 2)


class TestBandwidthHelpers:
    def test_nvlink4_ring_and_nvls_busbw(self):
        assert float(network.nvlink_busbw_gb_per_s(900.0)) == pytest.approx(370.0)
        assert float(network.nvlink_busbw_gb_per_s(900.0, use_nvls=True)) == pytest.approx(480.0)

    def test_intra_node_busbw_by_kind(self):
        kinds = [IntraNodeKind.NVLINK_NVSWITCH, IntraNodeKind.PCIE, IntraNodeKind.NVLINK_BRIDGE, IntraNodeKind.UNKNOWN]
        bw = network.intra_node_busbw_gb_per_s(kinds, [900.0, np.nan, 600.0, 900.0], use_nvls=True)
        np.testing.assert_allclose(bw, [480.0, 28.0, 600 / 2 * 370 / 450, np.nan])

    def test_nvlink_bridge_falls_back_to_pcie_beyond_a_pair(self):
        bw = network.effective_intra_busbw_gb_per_s([IntraNodeKind.NVLINK_BRIDGE] * 2, [246.7, 246.7], [2, 4])
        np.testing.assert_allclose(bw, [246.7, network.PCIE_ALLREDUCE_BUSBW_GB_PER_S])

    def test_kind_codes_map_catalog_strings(self):
        codes = network.kind_codes(["InfiniBand-NDR", "none", "", None, "Ethernet", "RoCEv2", "InfiniBand-HDR"],
                                   network.INTER_NODE_KIND_BY_NAME)
        assert codes.tolist() == [InterNodeKind.INFINIBAND_NDR, InterNodeKind.NONE, 0, 0, InterNodeKind.ETHERNET,
                                  InterNodeKind.ROCEV2, InterNodeKind.INFINIBAND_HDR]


class TestHierarchicalAllReduce:
    def test_single_node_equals_flat_ring_plus_bucket_latency(self):
        t = network.hierarchical_allreduce_time_s(1e9, 8, 1, 370.0, np.nan, n_collectives=10)
        assert float(t.total_s) == pytest.approx(1.75 * 1e9 / 370e9 + 10 * network.INTRA_NODE_LATENCY_S)
        assert float(t.inter_node_s) == 0.0

    def test_two_nodes_hand_computed(self):
        """Pipelined ring: the NVLink side (1 GB over 370 GB/s x 1.875) and the network side (8 GPUs' NIC shares,
        8 x 48 GB/s) are both busy; the slower one sets the time, no latency here."""
        t = network.hierarchical_allreduce_time_s(8e9, 8, 2, 370.0, 400.0, latency_s=0, hop_latency_s=0)
        factor = 2 * 15 / 16
        assert float(t.intra_node_s) == pytest.approx(factor * 8e9 / 370e9)
        assert float(t.inter_node_s) == pytest.approx(factor * 8e9 / (8 * 400 / 8 * 0.96 * 1e9))
        assert float(t.total_s) == pytest.approx(max(float(t.intra_node_s), float(t.inter_node_s)))

    def test_intra_node_phase_is_not_added_in_series_with_the_inter_node_phase(self):
        """Issue #17 concept 3 (regression: the engine used to add a full intra-node all-reduce to the inter-node
        one). With fast NICs the multi-node time is the NVLink-side time, not the sum."""
        two = network.hierarchical_allreduce_time_s(8e9, 8, 2, 370.0, 3200.0, latency_s=0, hop_latency_s=0)
        one = network.hierarchical_allreduce_time_s(8e9, 8, 1, 370.0, np.nan, latency_s=0, hop_latency_s=0)
        assert float(two.total_s) < 1.1 * float(one.total_s)

    def test_per_node_bandwidth_is_min_of_nvlink_side_and_nics(self):
        """Domain model s3: per-node bandwidth = min(NVLink side, NICs x NIC bandwidth)."""
        assert float(network.multinode_busbw_gb_per_s(28.0, 8, 2, 400.0)) == pytest.approx(28.0)  # PCIe node
        assert float(network.multinode_busbw_gb_per_s(370.0, 8, 2, 200.0)) == pytest.approx(8 * 24.0)
        assert float(network.multinode_busbw_gb_per_s(370.0, 1, 2, 200.0)) == pytest.approx(24.0)  # one rail

    def test_oversubscription_divides_cross_node_bandwidth(self):
        full = network.hierarchical_allreduce_time_s(8e9, 8, 4, 370.0, 400.0, hop_latency_s=0)
        half = network.hierarchical_allreduce_time_s(8e9, 8, 4, 370.0, 400.0, oversubscription_ratio=2.0,
                                                     hop_latency_s=0)
        assert float(half.inter_node_s) == pytest.approx(2 * float(full.inter_node_s))

    def test_latency_adds_a_tree_term_per_level_across_nodes(self):
        lat = [float(network.collective_latency_s(8, m)) for m in (1, 2, 4, 8, 1024)]
        assert lat[0] == pytest.approx(network.INTRA_NODE_LATENCY_S)
        assert lat[-1] == pytest.approx(network.INTRA_NODE_LATENCY_S + 2 * 10 * network.INTER_NODE_HOP_LATENCY_S)
        assert lat == sorted(lat)

    def test_reduce_scatter_volume_factor_halves_the_bandwidth_time(self):
        ar = network.hierarchical_allreduce_time_s(1e9, 8, 1, 370.0, np.nan, latency_s=0)
        rs = network.hierarchical_allreduce_time_s(1e9, 8, 1, 370.0, np.nan, latency_s=0, volume_factor=7 / 8)
        assert float(rs.total_s) == pytest.approx(float(ar.total_s) / 2)

    def test_unused_unknown_links_do_not_matter_but_needed_ones_give_nan(self):
        one_gpu_per_node = network.hierarchical_allreduce_time_s(1e9, 1, 4, np.nan, 200.0)
        assert np.isfinite(one_gpu_per_node.total_s)
        one_node = network.hierarchical_allreduce_time_s(1e9, 8, 1, 370.0, np.nan)
        assert np.isfinite(one_node.total_s)
        assert np.isnan(network.hierarchical_allreduce_time_s(1e9, 8, 2, np.nan, 200.0).total_s)
        assert np.isnan(network.hierarchical_allreduce_time_s(1e9, 8, 2, 370.0, np.nan).total_s)


@settings(max_examples=80, deadline=None)
@given(
    size=st.floats(min_value=1.0, max_value=1e12),
    g=st.integers(min_value=1, max_value=16),
    m=st.integers(min_value=1, max_value=4096),
    intra=st.lists(st.floats(min_value=1.0, max_value=1000.0), min_size=2, max_size=2).map(sorted),
    link=st.lists(st.floats(min_value=1.0, max_value=3200.0), min_size=2, max_size=2).map(sorted),
    oversub=st.floats(min_value=1.0, max_value=16.0),
)
def test_less_bandwidth_never_shortens_the_allreduce(size, g, m, intra, link, oversub):
    def t(i: float, e: float) -> float:
        return float(network.hierarchical_allreduce_time_s(size, g, m, i, e, oversub).total_s)

    assert t(intra[1], link[1]) >= 0
    assert t(intra[0], link[1]) >= t(intra[1], link[1]) * (1 - 1e-12)
    assert t(intra[1], link[0]) >= t(intra[1], link[1]) * (1 - 1e-12)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(min_value=2, max_value=100_000), size=st.floats(min_value=1.0, max_value=1e12))
def test_ring_time_never_below_the_bandwidth_lower_bound(n, size):
    """2(n-1)/n S / B is the bandwidth lower bound (Patarasuk & Yuan 2009): the engine adds only latency."""
    t = float(network.allreduce_time_s(size, n, 100.0, latency_s=5e-6))
    assert t >= 2 * (n - 1) / n * size / 100e9
