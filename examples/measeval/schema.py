"""MeasEval's annotation scheme (SemEval-2021 Task 8) as a paper-claims schema.

A quantity of a science paragraph, the entity it measures, the property of the entity it
measures and a qualifier (the context needed to understand it). The parser gives the
quantity's words, value, unit and range; the model says whether a number is a measurement or
a count (or neither) and copies the entity, property and qualifier from the text.

    claims extract paragraphs.jsonl --schema examples/measeval/schema.py:Quantity --out out/
    python benchmarks/measeval_eval.py --schema examples/measeval/schema.py:Quantity
"""

from typing import Literal, Optional

from pydantic import Field

from paper_claims import ClaimSchema, Span


class Quantity(ClaimSchema):
    """A count or a measurement that the paragraph reports, with what is measured."""

    kind: Literal["measurement", "count"] = Field(
        description="measurement: an amount with or without a unit (2.5 GPa, 30%, 12 m, 0.8, the year 2010); "
                    "count: a number of things (three samples, 274 participants). A reference number in "
                    "brackets, a figure, table, section or equation number, or a number inside a name is none")
    entity: Optional[Span] = Field(
        None, description="the thing measured or counted: a sample, material, site, organism, group or event")
    property: Optional[Span] = Field(
        None, description="the property of the entity that the number gives, usually a noun such as depth, "
                          "temperature, sensitivity, age; null for a count")
    context: Optional[Span] = Field(
        None, description="a short phrase of conditions needed to understand the number (where, when, under "
                          "what treatment), when the text gives one")

    examples = [
        {
            "text": "The GHQ has also been validated against a clinical interview, with acceptable sensitivity "
                    "(73%) and specificity (78%) (27). In a more recent validation using a subgroup of 274 "
                    "participants aged 58 to 70 in 2010, the sensitivity was 80% at 4 sites.",
            "claims": [
                {"number": "73%", "kind": "measurement", "entity": "GHQ", "property": "sensitivity"},
                {"number": "78%", "kind": "measurement", "entity": "GHQ", "property": "specificity"},
                {"number": "274 participants", "kind": "count", "entity": "subgroup"},
                {"number": "58 to 70", "kind": "measurement", "entity": "participants", "property": "aged"},
                {"number": "80%", "kind": "measurement", "entity": "GHQ", "property": "sensitivity",
                 "context": "in a more recent validation"},
                {"number": "4 sites", "kind": "count", "entity": "sites"},
            ],
        },
    ]
