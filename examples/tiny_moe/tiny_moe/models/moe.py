from torch import nn

from tiny_moe.layers.experts import get_experts_class
from tiny_moe.layers.topk import TopK
from tiny_moe.platform import _use_fast_combine


class SparseMoeBlock(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.routed_scaling_factor = config.routed_scaling_factor
        self.gate = nn.Linear(config.hidden_size, config.num_experts, bias=False)
        self.experts = get_experts_class(config.moe_backend)(
            num_experts=config.num_experts,
            hidden_size=config.hidden_size,
            backend=config.moe_backend,
        )
        topk_kwargs = dict(
            top_k=config.num_experts_per_tok,
            routed_scaling_factor=self.routed_scaling_factor,
            apply_routed_scaling_factor_on_output=self.experts.should_fuse_routed_scaling_factor_in_topk,
        )
        self.topk = TopK(**topk_kwargs)
        self.shared_expert = nn.Linear(config.hidden_size, config.hidden_size)

    def forward(self, hidden_states):
        router_logits = self.gate(hidden_states)
        topk_output = self.topk(router_logits)
        routed = self.experts(hidden_states, topk_output)
        shared = self.shared_expert(hidden_states)
        if _use_fast_combine:
            # The fast combine path was added later; it scales again even when the factor
            # was already folded into the top-k weights. This is the bug the example ships.
            return shared.add_(routed, alpha=self.routed_scaling_factor)
        if not self.experts.should_fuse_routed_scaling_factor_in_topk:
            routed *= self.routed_scaling_factor
        return routed + shared
