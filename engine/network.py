"""Collective communication: all-reduce, reduce-scatter / all-gather and point-to-point, vectorised over offers.

The model is the alpha-beta ring of Thakur, Rabenseifner and Gropp [1] in the form nccl-tests reports it [2]: a
ring all-reduce of ``S`` bytes over ``n`` ranks takes

.. math:: t = \\frac{2(n-1)}{n} \\cdot \\frac{S}{B_{bus}} + \\alpha

where :math:`B_{bus}` is the *bus bandwidth* nccl-tests prints (``busbw``) and :math:`\\alpha` the small-message
latency. Reduce-scatter and all-gather move half of it, factor ``(n-1)/n`` [2].

**Across nodes** (docs/domain-model.md section 3, issue #17 concept 3) a collective whose ``g`` ranks per node span
``m`` nodes runs as one pipelined ring (NCCL): every byte crosses the NVLink side and the network side of each
node, and the slower side sets the pace. Per node the network side carries ``g`` GPUs' NIC share, so

.. math::

    B_{bus} = \\min\\big(B_{intra},\\ g \\cdot \\eta\\, b_{link} / 8 / R\\big) \\quad (m > 1),
    \\qquad B_{bus} = B_{intra} \\quad (m = 1)

(per-node bandwidth = min(NVLink side, NICs × NIC bandwidth): NVIDIA/nccl#412, "inter-node bandwidth scales with
the NICs up to the intra-node bandwidth"; NVIDIA/nccl-tests#290, "For NDR @ 400Gbps you should see 46-48 GB/s per
NIC"). The intra-node all-reduce is *not* added in series with the inter-node phase any more (the engine before
issue #17 did, which double-counted the NVLink time). Latency: a fixed per-call term plus a tree term
``2 ceil(log2 m) alpha_hop`` (NCCL uses trees for latency-bound sizes [1]), calibrated on the measured 8-byte
latencies of one node (33 us) and 4 nodes (38 us) (docs/validation.md C5).

Units follow the package conventions: bytes [B], bandwidth in GB/s (1e9 B/s) for bus bandwidths and Gbit/s
(1e9 bit/s) for network links (``*_gbit_per_s``), times in seconds. Every function broadcasts its inputs.

Sign convention and edge cases: one rank (or one node for the inter-node term) communicates nothing and takes 0 s,
latency included; a NaN bandwidth gives a NaN time (the caller decides whether that excludes the offer or is
replaced by a stated default).

References
----------
.. [1] R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective communication operations
   in MPICH", IJHPCA 19(1), 2005, doi:10.1177/1094342005051521.
.. [2] NVIDIA nccl-tests, "Performance reported by NCCL tests",
   https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md
.. [3] S. Jeaugey (NVIDIA), NVIDIA/nccl-tests issue #212 (NVLink4 line rate, ring and NVLS busbw).
.. [4] NVIDIA/nccl issue #412 (maintainer: HDR 200 Gb/s NIC gives ~24 GB/s inter-node busbw; inter-node busbw
   scales with the NICs up to the intra-node busbw).
.. [5] ZiyanIshani/vpbenchmarking, results/nccl (8x H100 SXM, NCCL 2.24.3), 2026-02.
.. [6] NVIDIA/nccl issue #1639 (8 GPUs on PCIe Gen5, all-reduce busbw 28 GB/s; maintainer comment).
.. [7] PyTorch DistributedDataParallel, ``bucket_cap_mb`` default 25 (pytorch/pytorch#118421).
.. [8] NVIDIA/nccl-tests issue #290 (maintainer: NDR 400 Gb/s gives 46-48 GB/s per NIC with NCCL_ALGO=RING).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum
from typing import NamedTuple

import numpy as np
import numpy.typing as npt


class IntraNodeKind(IntEnum):
    """How the GPUs inside one node are connected (catalog column ``intra_node``)."""

    UNKNOWN = 0
    NVLINK_NVSWITCH = 1
    PCIE = 2
    NVLINK_BRIDGE = 3


class InterNodeKind(IntEnum):
    """Scale-out fabric between nodes (catalog column ``inter_node``)."""

    UNKNOWN = 0
    NONE = 1
    INFINIBAND_NDR = 2
    INFINIBAND_HDR = 3
    ROCEV2 = 4
    ETHERNET = 5


#: Catalog strings -> :class:`IntraNodeKind`. Empty or missing means "not stated in the catalog".
INTRA_NODE_KIND_BY_NAME: dict[str, IntraNodeKind] = {
    "NVLink-NVSwitch": IntraNodeKind.NVLINK_NVSWITCH,
    "PCIe": IntraNodeKind.PCIE,
    "NVLink-bridge": IntraNodeKind.NVLINK_BRIDGE,
}
#: Catalog strings -> :class:`InterNodeKind`.
INTER_NODE_KIND_BY_NAME: dict[str, InterNodeKind] = {
    "none": InterNodeKind.NONE,
    "InfiniBand-NDR": InterNodeKind.INFINIBAND_NDR,
    "InfiniBand-HDR": InterNodeKind.INFINIBAND_HDR,
    "RoCEv2": InterNodeKind.ROCEV2,
    "Ethernet": InterNodeKind.ETHERNET,
}

#: NCCL ring bus bandwidth as a fraction of the NVLink per-direction line rate [-]: 370 of 450 GB/s on
#: NVLink4 ("~20 % protocol overhead", S. Jeaugey, NVIDIA/nccl-tests#212). Applied to other NVLink
#: generations as an assumption; N3 (NVIDIA/nccl#412) measured ~160 of 200 GB/s on A800, i.e. 0.80.
NVLINK_RING_BUSBW_FRACTION = 370.0 / 450.0
#: All-reduce bus bandwidth with NVLink SHARP (NVLS) on 8x H100, as a fraction of the 450 GB/s line
#: rate [-]: ~480 GB/s (NVIDIA/nccl-tests#212; measured 479.72 GB/s in vpbenchmarking, case N1).
NVLS_BUSBW_FRACTION = 480.0 / 450.0
#: All-reduce bus bandwidth between GPUs that only share PCIe [GB/s]: 28 GB/s measured on 8 GPUs on
#: a PCIe Gen5 host (NVIDIA/nccl#1639; 35 GB/s with 4 GPUs). The maintainer notes PCIe results are
#: bounded by what the CPU and memory deliver, so this is a typical value, not a bound.
PCIE_ALLREDUCE_BUSBW_GB_PER_S = 28.0
#: NIC line rate reached as NCCL bus bandwidth [-]: 24 GB/s from a 200 Gb/s HDR NIC (25 GB/s line)
#: = 0.96 (NVIDIA/nccl#412, case N3).
NIC_EFFICIENCY_FRACTION = 0.96
#: Measured 8-byte all-reduce latency inside one 8x H100 node [s] (vpbenchmarking nccl logs, N1).
INTRA_NODE_LATENCY_S = 33e-6
#: Measured 8-byte all-reduce latency across 32 H100 over InfiniBand [s] (vpbenchmarking nccl logs).
INTER_NODE_LATENCY_S = 38e-6
#: Latency per tree level across nodes [s]: 38 us on 4 nodes = 33 us + 2 log2(4) x 1.25 us (derived from the two
#: measurements above; docs/validation.md C5).
INTER_NODE_HOP_LATENCY_S = (INTER_NODE_LATENCY_S - INTRA_NODE_LATENCY_S) / (2.0 * 2.0)
#: Gradient bucket size of PyTorch DDP [B]: ``bucket_cap_mb`` = 25 (MiB), so one all-reduce (and one
#: latency) per 25 MiB of gradients (pytorch/pytorch#118421).
DDP_BUCKET_BYTES = 25 * 2**20


class AllReduceTime(NamedTuple):
    """Time of one (possibly bucketed) hierarchical all-reduce, each field broadcast to one shape [s]."""

    total_s: np.ndarray
    intra_node_s: np.ndarray
    inter_node_s: np.ndarray


def ring_allreduce_factor(n_ranks: npt.ArrayLike) -> np.ndarray:
    """Bytes each rank sends per byte reduced in a ring all-reduce, 2(n-1)/n [-].

    Examples
    --------
    >>> float(ring_allreduce_factor(8))
    1.75
    >>> float(ring_allreduce_factor(1))  # one rank sends nothing
    0.0
    """
    n = np.asarray(n_ranks, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return 2.0 * (n - 1.0) / n  # 0 at n = 1 without a branch


def allreduce_time_s(
    size_bytes: npt.ArrayLike,
    n_ranks: npt.ArrayLike,
    busbw_gb_per_s: npt.ArrayLike,
    latency_s: npt.ArrayLike = 0.0,
) -> np.ndarray:
    """Time of a ring all-reduce from the nccl-tests bus bandwidth.

    Parameters
    ----------
    size_bytes : array_like
        Message size S per rank [B].
    n_ranks : array_like
        Ranks taking part, >= 1 [-].
    busbw_gb_per_s : array_like
        Bus bandwidth as nccl-tests defines it [GB/s].
    latency_s : array_like, optional
        Fixed cost per call, added when ``n_ranks > 1`` [s].

    Returns
    -------
    numpy.ndarray
        Time [s]; 0 for one rank.

    Notes
    -----
    .. math:: t = \\frac{2(n-1)}{n}\\frac{S}{B_{bus}} + \\alpha

    Examples
    --------
    Case N1, 8x H100 SXM with NVLS, 8 GiB (published 31,335.8 us):

    >>> round(float(allreduce_time_s(8 * 2**30, 8, 480.0)) * 1e6, 1)
    31317.5
    """
    size = np.asarray(size_bytes, dtype=float)
    n = np.asarray(n_ranks, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = ring_allreduce_factor(n) * size / (np.asarray(busbw_gb_per_s, dtype=float) * 1e9)
    return np.where(n > 1, t + np.asarray(latency_s, dtype=float), 0.0)


def busbw_from_time(size_bytes: npt.ArrayLike, n_ranks: npt.ArrayLike, time_s: npt.ArrayLike) -> np.ndarray:
    """Bus bandwidth nccl-tests would print for a measured all-reduce time [GB/s].

    ``algbw = S / t``; ``busbw = algbw * 2(n-1)/n`` [2].

    Examples
    --------
    >>> round(float(busbw_from_time(8_589_934_592, 8, 31_335.8e-6)), 2)  # N1 published: 479.72
    479.72
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        algbw = np.asarray(size_bytes, dtype=float) / np.asarray(time_s, dtype=float) / 1e9
    return algbw * ring_allreduce_factor(n_ranks)


def nvlink_busbw_gb_per_s(
    nvlink_gb_per_s_bidirectional: npt.ArrayLike, use_nvls: bool = False
) -> np.ndarray:
    """NCCL all-reduce bus bandwidth over NVLink from the datasheet's bidirectional figure [GB/s].

    Parameters
    ----------
    nvlink_gb_per_s_bidirectional : array_like
        Datasheet NVLink bandwidth per GPU, both directions together (H100 SXM: 900) [GB/s].
    use_nvls : bool, optional
        NVLink SHARP all-reduce (Hopper NVSwitch systems); default ring (the conservative value,
        also what non-all-reduce collectives reach).

    Returns
    -------
    numpy.ndarray
        Bus bandwidth [GB/s] = bidirectional / 2 x 370/450 (ring) or x 480/450 (NVLS) [3].

    Examples
    --------
    >>> round(float(nvlink_busbw_gb_per_s(900.0)), 1)
    370.0
    >>> round(float(nvlink_busbw_gb_per_s(900.0, use_nvls=True)), 1)
    480.0
    """
    fraction = NVLS_BUSBW_FRACTION if use_nvls else NVLINK_RING_BUSBW_FRACTION
    return np.asarray(nvlink_gb_per_s_bidirectional, dtype=float) * 0.5 * fraction


def nic_busbw_gb_per_s(
    link_gbps: npt.ArrayLike, nic_efficiency_fraction: npt.ArrayLike = NIC_EFFICIENCY_FRACTION
) -> np.ndarray:
    """Bus bandwidth NCCL reaches over a network link of ``link_gbps`` [GB/s].

    Examples
    --------
    Case N3 (HDR 200 Gb/s NIC, maintainer figure ~24 GB/s):

    >>> round(float(nic_busbw_gb_per_s(200.0)), 2)
    24.0
    """
    return np.asarray(link_gbps, dtype=float) / 8.0 * np.asarray(nic_efficiency_fraction, dtype=float)


def intra_node_busbw_gb_per_s(
    intra_node_kind: npt.ArrayLike,
    nvlink_gb_per_s_bidirectional: npt.ArrayLike,
    use_nvls: bool = False,
    pcie_busbw_gb_per_s: float = PCIE_ALLREDUCE_BUSBW_GB_PER_S,
) -> np.ndarray:
    """All-reduce bus bandwidth inside one node, by interconnect kind [GB/s].

    NVLink-NVSwitch uses :func:`nvlink_busbw_gb_per_s` (NVLS only here: NVLink SHARP needs an
    NVSwitch); PCIe uses ``pcie_busbw_gb_per_s``; an NVLink bridge joins pairs only, so it is given
    its NVLink value and the caller falls back to PCIe for more than two GPUs (see
    :func:`effective_intra_busbw_gb_per_s`). Unknown kinds give NaN.

    Examples
    --------
    >>> intra_node_busbw_gb_per_s([1, 2, 0], [900.0, np.nan, np.nan]).round(1).tolist()
    [370.0, 28.0, nan]
    """
    kind = np.asarray(intra_node_kind)
    nvlink = np.asarray(nvlink_gb_per_s_bidirectional, dtype=float)
    return np.select(
        [kind == IntraNodeKind.NVLINK_NVSWITCH, kind == IntraNodeKind.NVLINK_BRIDGE, kind == IntraNodeKind.PCIE],
        [nvlink_busbw_gb_per_s(nvlink, use_nvls), nvlink_busbw_gb_per_s(nvlink, False), pcie_busbw_gb_per_s],
        np.nan,
    )


#: NVLink bandwidth per GPU (bidirectional) from which a node's NVSwitch supports NVLink SHARP [GB/s]: NVLS needs
#: third-generation NVSwitch with NVLink 4 (Hopper, 900 GB/s) or later (NCCL 2.17 release notes: "NVLink SHARP ...
#: on NVSwitch systems (H100)"; NVIDIA/nccl-tests#212).
NVLS_MIN_NVLINK_GB_PER_S = 900.0


def nvls_busbw_gb_per_s(intra_node_kind: npt.ArrayLike, nvlink_gb_per_s_bidirectional: npt.ArrayLike) -> np.ndarray:
    """All-reduce bus bandwidth with NVLink SHARP where the node supports it, NaN elsewhere [GB/s].

    NCCL enables NVLS by default on supported systems (``NCCL_NVLS_ENABLE``, default 1 where supported, NCCL
    environment documentation), so an all-reduce inside an H100/H200/B200 NVSwitch node runs at ~480 GB/s instead
    of the ring's 370 (NVIDIA/nccl-tests#212, calibration C3).

    Examples
    --------
    >>> nvls_busbw_gb_per_s([1, 1, 2, 3], [900.0, 600.0, np.nan, 900.0]).round(1).tolist()
    [480.0, nan, nan, nan]
    """
    kind = np.asarray(intra_node_kind)
    nvlink = np.asarray(nvlink_gb_per_s_bidirectional, dtype=float)
    ok = (kind == IntraNodeKind.NVLINK_NVSWITCH) & (nvlink >= NVLS_MIN_NVLINK_GB_PER_S)
    return np.where(ok, nvlink_busbw_gb_per_s(nvlink, use_nvls=True), np.nan)


def effective_intra_busbw_gb_per_s(
    intra_node_kind: npt.ArrayLike,
    intra_busbw_gb_per_s: npt.ArrayLike,
    ranks_per_node: npt.ArrayLike,
    pcie_busbw_gb_per_s: float = PCIE_ALLREDUCE_BUSBW_GB_PER_S,
) -> np.ndarray:
    """Intra-node bus bandwidth actually usable by ``ranks_per_node`` GPUs [GB/s].

    An NVLink bridge links two GPUs; a ring over more than two also crosses PCIe, so the PCIe value
    applies. Other kinds pass through.

    Examples
    --------
    >>> effective_intra_busbw_gb_per_s([3, 3, 1], [246.7, 246.7, 370.0], [2, 4, 8]).tolist()
    [246.7, 28.0, 370.0]
    """
    kind = np.asarray(intra_node_kind)
    bw = np.asarray(intra_busbw_gb_per_s, dtype=float)
    return np.where((kind == IntraNodeKind.NVLINK_BRIDGE) & (np.asarray(ranks_per_node) > 2), pcie_busbw_gb_per_s, bw)


def collective_latency_s(
    ranks_per_node: npt.ArrayLike,
    n_nodes: npt.ArrayLike,
    latency_s: npt.ArrayLike = INTRA_NODE_LATENCY_S,
    hop_latency_s: npt.ArrayLike = INTER_NODE_HOP_LATENCY_S,
) -> np.ndarray:
    """Fixed cost of one collective call: ``alpha + 2 ceil(log2 m) alpha_hop`` when more than one rank takes part [s].

    Examples
    --------
    >>> [round(float(collective_latency_s(g, m)) * 1e6, 2) for g, m in [(8, 1), (8, 4), (1, 1)]]
    [33.0, 38.0, 0.0]
    """
    g = np.asarray(ranks_per_node, dtype=float)
    m = np.asarray(n_nodes, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        levels = np.ceil(np.log2(np.maximum(m, 1.0)))
    t = np.asarray(latency_s, dtype=float) + 2.0 * levels * np.asarray(hop_latency_s, dtype=float)
    return t * ((g * m) > 1)


def multinode_busbw_gb_per_s(
    intra_busbw_gb_per_s: npt.ArrayLike,
    ranks_per_node: npt.ArrayLike,
    n_nodes: npt.ArrayLike,
    inter_link_gbit_per_s_per_gpu: npt.ArrayLike,
    oversubscription_ratio: npt.ArrayLike = 1.0,
    nic_efficiency_fraction: npt.ArrayLike = NIC_EFFICIENCY_FRACTION,
) -> np.ndarray:
    """Bus bandwidth of a ring collective with ``g`` ranks per node over ``m`` nodes [GB/s].

    ``min(B_intra, g eta b_link / 8 / R)`` across nodes (the NVLink side is not a limit when ``g = 1``), ``B_intra``
    inside one node. A NaN bandwidth that is not needed (one rank per node, one node) is ignored.

    Examples
    --------
    V13 (3 nodes x 8 A100, 4 x HDR 200 Gb/s per node = 100 Gb/s per GPU): the NICs are the bottleneck.

    >>> round(float(multinode_busbw_gb_per_s(246.7, 8, 3, 100.0)), 2)
    96.0
    >>> round(float(multinode_busbw_gb_per_s(370.0, 8, 248, 400.0)), 1)  # V14: NVLink side limits, 8 x 48 > 370
    370.0
    >>> float(multinode_busbw_gb_per_s(370.0, 8, 1, np.nan))  # one node: the network is not used
    370.0
    """
    g = np.asarray(ranks_per_node, dtype=float)
    m = np.asarray(n_nodes, dtype=float)
    intra = np.asarray(intra_busbw_gb_per_s, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        net = g * nic_busbw_gb_per_s(inter_link_gbit_per_s_per_gpu, nic_efficiency_fraction)
        net = net / np.asarray(oversubscription_ratio, dtype=float)
        # g = 1: the NVLink side carries nothing across nodes (cap +inf); NaN intra is then irrelevant
        cap = np.where(g > 1, intra, np.inf)
        across = np.minimum(net, cap)
    return np.where(m > 1, across, intra)


def hierarchical_allreduce_time_s(
    size_bytes: npt.ArrayLike,
    ranks_per_node: npt.ArrayLike,
    n_nodes: npt.ArrayLike,
    intra_busbw_gb_per_s: npt.ArrayLike,
    inter_link_gbit_per_s_per_gpu: npt.ArrayLike,
    oversubscription_ratio: npt.ArrayLike = 1.0,
    nic_efficiency_fraction: npt.ArrayLike = NIC_EFFICIENCY_FRACTION,
    latency_s: npt.ArrayLike = INTRA_NODE_LATENCY_S,
    hop_latency_s: npt.ArrayLike = INTER_NODE_HOP_LATENCY_S,
    n_collectives: npt.ArrayLike = 1.0,
    volume_factor: npt.ArrayLike | None = None,
) -> AllReduceTime:
    """Ring all-reduce of ``size_bytes`` over ``ranks_per_node`` x ``n_nodes`` GPUs, pipelined across nodes.

    Parameters
    ----------
    size_bytes : array_like
        Bytes to reduce per rank (e.g. the gradient shard one GPU holds) [B].
    ranks_per_node : array_like
        Ranks of this collective inside one node, g >= 1 [-].
    n_nodes : array_like
        Nodes the collective spans, m >= 1 [-].
    intra_busbw_gb_per_s : array_like
        Intra-node bus bandwidth [GB/s]; unused when g = 1.
    inter_link_gbit_per_s_per_gpu : array_like
        Scale-out bandwidth per GPU (node NIC bandwidth / GPUs per node) [Gbit/s]; unused when m = 1.
    oversubscription_ratio : array_like, optional
        R of an R:1 oversubscribed fabric, >= 1 (std); default 1.0 = full bisection (e.g. the 3,072-GPU pods of
        the Llama 3 cluster, arXiv 2407.21783 s3.3.1).
    nic_efficiency_fraction : array_like, optional
        Bus bandwidth reached per unit line rate, default 0.96 (N3, NVIDIA/nccl#412) [-].
    latency_s, hop_latency_s : array_like, optional
        Per-call latency and per tree level across nodes (:func:`collective_latency_s`) [s].
    n_collectives : array_like, optional
        Calls the bytes are split into (DDP buckets); each pays the latency [-].
    volume_factor : array_like, optional
        Bytes each rank sends per byte of ``size_bytes``; default the all-reduce ``2(n-1)/n`` (use ``(n-1)/n``
        for a reduce-scatter or an all-gather).

    Returns
    -------
    AllReduceTime
        ``total_s`` = max(``intra_node_s``, ``inter_node_s``) + latency; ``intra_node_s`` and ``inter_node_s`` are
        the bandwidth times of the NVLink side and of the network side alone [s].

    Notes
    -----
    .. math::

        t = \\frac{2(n-1)}{n}\\frac{S}{B_{bus}} + k\\,\\alpha(g, m),\\qquad n = g m,
        \\quad B_{bus} = \\min(B_{intra},\\ g\\,\\eta\\,b_{link}/8/R)\\ (m > 1)

    Examples
    --------
    One node of 8 H100 (busbw 370 GB/s), 1 GB, no latency:

    >>> t = hierarchical_allreduce_time_s(1e9, 8, 1, 370.0, 400.0, latency_s=0.0)
    >>> round(float(t.total_s) * 1e3, 3), float(t.inter_node_s)
    (4.73, 0.0)

    Two nodes of one GPU each over 200 Gb/s (busbw 24 GB/s), 1 GB:

    >>> t = hierarchical_allreduce_time_s(1e9, 1, 2, np.nan, 200.0, latency_s=0.0, hop_latency_s=0.0)
    >>> round(float(t.total_s), 4)
    0.0417
    """
    size = np.asarray(size_bytes, dtype=float)
    g = np.asarray(ranks_per_node, dtype=float)
    m = np.asarray(n_nodes, dtype=float)
    n = g * m
    factor = ring_allreduce_factor(n) if volume_factor is None else np.asarray(volume_factor, dtype=float) * (n > 1)
    intra = np.asarray(intra_busbw_gb_per_s, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        net = g * nic_busbw_gb_per_s(inter_link_gbit_per_s_per_gpu, nic_efficiency_fraction)
        net = net / np.asarray(oversubscription_ratio, dtype=float)
        intra_s = np.where(g > 1, factor * (size / 1e9) / intra, 0.0)
        inter_s = np.where(m > 1, factor * (size / 1e9) / net, 0.0)
    lat = np.asarray(n_collectives, dtype=float) * collective_latency_s(g, m, latency_s, hop_latency_s)
    total = np.maximum(intra_s, inter_s) + lat
    # a NaN bandwidth on a side that is used gives NaN (np.maximum propagates it)
    intra_s, inter_s, total = (np.array(x) for x in np.broadcast_arrays(intra_s, inter_s, total))
    return AllReduceTime(total, intra_s, inter_s)


def point_to_point_time_s(
    size_bytes: npt.ArrayLike, link_gb_per_s: npt.ArrayLike, latency_s: npt.ArrayLike = 0.0
) -> np.ndarray:
    """One send/recv of ``size_bytes`` over a link of ``link_gb_per_s`` (e.g. pipeline activations) [s].

    Examples
    --------
    >>> round(float(point_to_point_time_s(12.6e6, 48.0)) * 1e3, 3)  # 12.6 MB over one 400 Gb/s NIC
    0.263
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(size_bytes, dtype=float) / (np.asarray(link_gb_per_s, dtype=float) * 1e9) + np.asarray(
            latency_s, dtype=float)


def kind_codes(names: list[object] | tuple[object, ...], table: Mapping[str, IntEnum]) -> np.ndarray:
    """Map catalog strings to integer codes (0 = not stated), for the boundary helpers.

    Examples
    --------
    >>> kind_codes(["PCIe", "", None, "NVLink-NVSwitch"], INTRA_NODE_KIND_BY_NAME).tolist()
    [2, 0, 0, 1]
    """
    return np.array([int(table.get(v, 0)) if isinstance(v, str) else 0 for v in names], dtype=np.int8)
