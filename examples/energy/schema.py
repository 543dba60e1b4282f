"""A systems researcher's schema: the energy, power and throughput figures of inference or
training, with what they are measured on and the batch size they are measured at.

    claims extract abstracts/ --schema examples/energy/schema.py:EnergyFigure --out energy/
"""

from typing import Literal, Optional

from pydantic import Field

from paper_claims import ClaimSchema, Span


class EnergyFigure(ClaimSchema):
    """A measured energy, power or throughput figure of running or training a model."""

    kind: Literal["energy", "power", "throughput", "batch_size"] = Field(
        description="energy: joules or watt-hours, per token, per query or in total; power: watts; "
                    "throughput: tokens, images or queries per second; batch_size: the batch size a figure is "
                    "measured at. Accuracies, model sizes and speed-up factors are none")
    system: Optional[Span] = Field(None, description="the model or system the figure is measured for")
    hardware: Optional[Span] = Field(None, description="the device it runs on (a GPU, CPU, phone, accelerator)")
    per: Optional[Span] = Field(None, description="what the figure is per, when the text says (per token, per query)")
    ours: bool = Field(True, description="the figure is the paper's own result, not a baseline's")

    examples = [
        {
            "text": "On an A100 GPU, Falcon-Lite uses 0.21 J per token at a batch size of 32, against 0.55 J for "
                    "the dense baseline, and serves 1,900 tokens/s.",
            "claims": [
                {"number": "0.21 J", "kind": "energy", "system": "Falcon-Lite", "hardware": "A100 GPU",
                 "per": "per token", "ours": True},
                {"number": "32", "kind": "batch_size", "system": "Falcon-Lite", "hardware": "A100 GPU", "ours": True},
                {"number": "0.55 J", "kind": "energy", "system": "dense baseline", "hardware": "A100 GPU",
                 "ours": False},
                {"number": "1,900 tokens/s", "kind": "throughput", "system": "Falcon-Lite", "hardware": "A100 GPU",
                 "ours": True},
            ],
        },
    ]
