from typing import NamedTuple

import torch
from torch import nn


class TopKOutput(NamedTuple):
    weights: torch.Tensor
    ids: torch.Tensor


class TopK(nn.Module):
    def __init__(self, top_k, routed_scaling_factor=1.0, apply_routed_scaling_factor_on_output=False):
        super().__init__()
        self.top_k = top_k
        self.routed_scaling_factor = routed_scaling_factor
        self.apply_routed_scaling_factor_on_output = apply_routed_scaling_factor_on_output

    def forward(self, router_logits):
        weights, ids = torch.topk(router_logits.softmax(dim=-1), self.top_k)
        if self.apply_routed_scaling_factor_on_output:
            # Folded into the routing weights: the experts' output comes out scaled.
            weights = weights * self.routed_scaling_factor
        return TopKOutput(weights, ids)
