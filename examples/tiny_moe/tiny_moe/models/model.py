from torch import nn

from tiny_moe.models import moe


class DecoderLayer(nn.Module):
    def __init__(self, config, layer_id):
        super().__init__()
        self.input_layernorm = nn.LayerNorm(config.hidden_size)
        self.mlp = moe.SparseMoeBlock(config)

    def forward(self, hidden_states):
        return hidden_states + self.mlp(self.input_layernorm(hidden_states))


class TinyMoeForCausalLM(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.embed = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList([DecoderLayer(config, i) for i in range(config.num_layers)])
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)

    def forward(self, input_ids):
        hidden_states = self.embed(input_ids)
        for layer in self.layers:
            hidden_states = layer(hidden_states)
        return self.lm_head(hidden_states)
