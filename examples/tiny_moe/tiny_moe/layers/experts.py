import torch
from torch import nn

from tiny_moe.platform import _is_cuda


class Experts(nn.Module):
    """Runs the routed experts and combines their outputs with the top-k weights."""

    def __init__(self, num_experts, hidden_size, backend="triton"):
        super().__init__()
        self.num_experts = num_experts
        self.w = nn.Parameter(torch.empty(num_experts, hidden_size, hidden_size))
        # Some backends want the factor folded into the top-k weights.
        self.should_fuse_routed_scaling_factor_in_topk = backend == "flashinfer" and _is_cuda

    def forward(self, x, topk_output):
        weights, ids = topk_output
        out = torch.einsum("th,ehd->ted", x, self.w[ids.flatten()].view(-1, *self.w.shape[1:]))
        return (out * weights.unsqueeze(-1)).sum(dim=1)


class EpExperts(Experts):
    """Expert-parallel variant: same combine, different dispatch."""


def get_experts_class(backend):
    if backend == "ep":
        return EpExperts
    return Experts
