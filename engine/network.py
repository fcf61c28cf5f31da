"""Collective communication: the data-parallel gradient all-reduce, vectorised over offers.

The model is the alpha-beta ring of Thakur, Rabenseifner and Gropp [1] in the form nccl-tests
reports it [2]: a ring all-reduce of ``S`` bytes over ``n`` ranks takes

.. math:: t = \\frac{2(n-1)}{n} \\cdot \\frac{S}{B_{bus}} + \\alpha

where :math:`B_{bus}` is the *bus bandwidth* nccl-tests prints (``busbw``) and :math:`\\alpha` the
measured small-message latency. Across nodes the all-reduce is decomposed hierarchically (std):
reduce-scatter inside the node, an all-reduce of ``S/g`` per GPU across the ``m`` nodes over that
GPU's share of the network, then an all-gather inside the node. The two phases are added (they are
sequential in the decomposition); NCCL can pipeline them, so the sum is an upper bound on the time.

Units follow the package conventions: bytes [B], bandwidth in GB/s (1e9 B/s) for bus bandwidths
and Gbit/s (1e9 bit/s) for network links, times in seconds. Every function broadcasts its inputs.

Sign convention and edge cases: one rank (or one node for the inter-node phase) communicates
nothing and takes 0 s, latency included; a NaN bandwidth gives a NaN time (the caller decides
whether that excludes the offer or is replaced by a stated default).

References
----------
.. [1] R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective communication operations
   in MPICH", IJHPCA 19(1), 2005, doi:10.1177/1094342005051521.
.. [2] NVIDIA nccl-tests, "Performance reported by NCCL tests",
   https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md
.. [3] S. Jeaugey (NVIDIA), NVIDIA/nccl-tests issue #212 (NVLink4 line rate, ring and NVLS busbw).
.. [4] NVIDIA/nccl issue #412 (maintainer: HDR 200 Gb/s NIC gives ~24 GB/s inter-node busbw).
.. [5] ZiyanIshani/vpbenchmarking, results/nccl (8x H100 SXM, NCCL 2.24.3), 2026-02.
.. [6] NVIDIA/nccl issue #1639 (8 GPUs on PCIe Gen5, all-reduce busbw 28 GB/s; maintainer comment).
.. [7] PyTorch DistributedDataParallel, ``bucket_cap_mb`` default 25 (pytorch/pytorch#118421).
"""

from __future__ import annotations

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


def hierarchical_allreduce_time_s(
    size_bytes: npt.ArrayLike,
    ranks_per_node: npt.ArrayLike,
    n_nodes: npt.ArrayLike,
    intra_busbw_gb_per_s: npt.ArrayLike,
    inter_link_gbps_per_gpu: npt.ArrayLike,
    oversubscription_ratio: npt.ArrayLike = 1.0,
    nic_efficiency_fraction: npt.ArrayLike = NIC_EFFICIENCY_FRACTION,
    intra_latency_s: npt.ArrayLike = INTRA_NODE_LATENCY_S,
    inter_latency_s: npt.ArrayLike = INTER_NODE_LATENCY_S,
    n_collectives: npt.ArrayLike = 1.0,
) -> AllReduceTime:
    """Hierarchical ring all-reduce of ``size_bytes`` over ``ranks_per_node`` x ``n_nodes`` GPUs.

    Parameters
    ----------
    size_bytes : array_like
        Bytes to reduce per rank (the whole gradient of one replica shard) [B].
    ranks_per_node : array_like
        Ranks of this all-reduce inside one node, g >= 1 [-].
    n_nodes : array_like
        Nodes, m >= 1 [-].
    intra_busbw_gb_per_s : array_like
        Intra-node all-reduce bus bandwidth [GB/s]; unused when g = 1.
    inter_link_gbps_per_gpu : array_like
        Scale-out bandwidth per GPU (node NIC bandwidth / GPUs per node) [Gbit/s]; unused when m = 1.
    oversubscription_ratio : array_like, optional
        R of an R:1 oversubscribed fabric, >= 1; per-GPU cross-node bandwidth is divided by R
        (std). Default 1.0 = full bisection (e.g. the 3,072-GPU pods of the Llama 3 cluster,
        arXiv 2407.21783 s3.3.1). The engine applies R to all inter-node bytes.
    nic_efficiency_fraction : array_like, optional
        Bus bandwidth reached per unit line rate, default 0.96 (N3, NVIDIA/nccl#412) [-].
    intra_latency_s, inter_latency_s : array_like, optional
        Latency per collective per phase, default 33 us / 38 us (vpbenchmarking, N1) [s].
    n_collectives : array_like, optional
        Number of calls the bytes are split into (DDP buckets); each pays the latency [-].

    Returns
    -------
    AllReduceTime
        ``total_s``, ``intra_node_s``, ``inter_node_s`` [s], broadcast to one shape.

    Notes
    -----
    .. math::

        t = \\frac{2(g-1)}{g}\\frac{S}{B_{intra}} + k\\,\\alpha_{intra}[g>1]
          + \\frac{2(m-1)}{m}\\frac{S/g}{B_{inter}} + k\\,\\alpha_{inter}[m>1],
        \\quad B_{inter} = \\min(B_{intra}, \\eta\\,b_{link}/8) / R

    The cap by the intra-node bus bandwidth follows the maintainer statement that inter-node
    bandwidth scales with the NICs up to the intra-node bandwidth (NVIDIA/nccl#412).

    Examples
    --------
    One node of 8 H100 (busbw 370 GB/s), 1 GB, no latency:

    >>> t = hierarchical_allreduce_time_s(1e9, 8, 1, 370.0, 400.0, intra_latency_s=0.0)
    >>> round(float(t.total_s) * 1e3, 3), float(t.inter_node_s)
    (4.73, 0.0)

    Two nodes of one GPU each over 200 Gb/s (busbw 24 GB/s), 1 GB:

    >>> t = hierarchical_allreduce_time_s(1e9, 1, 2, np.nan, 200.0, inter_latency_s=0.0)
    >>> round(float(t.total_s), 4)
    0.0417
    """
    size = np.asarray(size_bytes, dtype=float)
    g = np.asarray(ranks_per_node, dtype=float)
    m = np.asarray(n_nodes, dtype=float)
    intra = np.asarray(intra_busbw_gb_per_s, dtype=float)
    k = np.asarray(n_collectives, dtype=float)
    # Branch-free selection (np.where on an unsorted mask is ~10x slower than arithmetic here):
    # fmin(x, 0/[rank count <= 1]) is 0 for a single rank and x (NaN kept) otherwise, because
    # 0/1 = 0 and 0/0 = NaN, and fmin ignores a NaN operand.
    with np.errstate(divide="ignore", invalid="ignore"):
        # per-GPU cross-node bandwidth [B/s]: NIC share, capped by the intra-node busbw when g > 1
        # (+inf added to the cap when g = 1), divided by the oversubscription ratio
        inter = nic_busbw_gb_per_s(inter_link_gbps_per_gpu, nic_efficiency_fraction)
        # np.minimum keeps a NaN NIC bandwidth; the cap is +inf when g = 1 and never NaN (a NaN
        # intra bandwidth with g > 1 already makes intra_s NaN)
        inter = np.minimum(inter, np.fmax(intra, 0.0) + (1.0 / (g > 1) - 1.0))
        inter *= 1e9 / np.asarray(oversubscription_ratio, dtype=float)
        intra_s = np.fmin(ring_allreduce_factor(g) * (size / 1e9) / intra + k * np.asarray(intra_latency_s),
                          0.0 / (g <= 1))
        inter_s = np.fmin(ring_allreduce_factor(m) * size / g / inter + k * np.asarray(inter_latency_s),
                          0.0 / (m <= 1))
    if intra_s.shape != inter_s.shape:
        intra_s, inter_s = (np.array(x) for x in np.broadcast_arrays(intra_s, inter_s))
    return AllReduceTime(intra_s + inter_s, intra_s, inter_s)


def _data_parallel_allreduce_s(
    size_bytes: float,
    ranks_per_node: np.ndarray,
    n_nodes: np.ndarray,
    intra_busbw_gb_per_s: np.ndarray,
    inter_link_gbps_per_gpu: np.ndarray,
    oversubscription_ratio: float,
    nic_efficiency_fraction: float,
    intra_latency_s: float,
    inter_latency_s: float,
    n_collectives: float,
) -> np.ndarray:
    """``hierarchical_allreduce_time_s(...).total_s`` for the workload kernel, ~2x faster.

    Plain arithmetic only (no masks, no NaN-aware ufuncs on the way). Same value wherever the
    bandwidths a row *needs* are known; a NaN bandwidth that is not needed (one rank per node, one
    node) is ignored; a NaN bandwidth that *is* needed gives a meaningless huge time, so the caller
    must exclude those rows (the kernel does). Rank counts are >= 1.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        tiny = 1e-30  # stands in for a NaN bandwidth; x / tiny stays finite, and 0 * finite = 0
        inv_g = 1.0 / ranks_per_node
        half_factor_g = 1.0 - inv_g  # (g-1)/g, 0 at g = 1
        on_g = np.minimum(half_factor_g + half_factor_g, 1.0)  # 1 when g >= 2, 0 when g = 1
        intra = np.fmax(intra_busbw_gb_per_s, tiny)
        t = (2.0 * size_bytes / 1e9) / intra
        t *= half_factor_g
        t += on_g * (n_collectives * intra_latency_s)
        inter = np.minimum(inter_link_gbps_per_gpu * (nic_efficiency_fraction / 8.0), intra / on_g)  # no cap at g = 1
        inter = np.fmax(inter, tiny)
        half_factor_m = 1.0 - 1.0 / n_nodes
        t_inter = inv_g * (2.0 * size_bytes * oversubscription_ratio / 1e9)
        t_inter /= inter
        t_inter *= half_factor_m
        t += t_inter
        half_factor_m += half_factor_m
        np.minimum(half_factor_m, 1.0, out=half_factor_m)
        half_factor_m *= n_collectives * inter_latency_s
        t += half_factor_m
    return t


def kind_codes(names: list[object] | tuple[object, ...], table: dict[str, IntEnum]) -> np.ndarray:
    """Map catalog strings to integer codes (0 = not stated), for the boundary helpers.

    Examples
    --------
    >>> kind_codes(["PCIe", "", None, "NVLink-NVSwitch"], INTRA_NODE_KIND_BY_NAME).tolist()
    [2, 0, 0, 1]
    """
    return np.array([int(table.get(v, 0)) if isinstance(v, str) else 0 for v in names], dtype=np.int8)
