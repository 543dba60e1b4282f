"""paper_claims.rules.baselines: what a claim is compared against (invented abstracts)."""

from __future__ import annotations

from paper_claims.parse.quantities import find_quantities
from paper_claims.rules.selection import candidate_mentions
from paper_claims.schemas import DocumentLabels
from paper_claims.parse.document import parse_text
from tests.invented import setup, ground, marked


def test_baseline_is_the_name_compared_in_the_claim_s_own_clause() -> None:
    from paper_claims.rules.baselines import compared_name

    text = "We present Wren. Wren outperforms Finch by 4.1 points, and is 2x faster than Robin on Z900 GPUs."
    mentions = candidate_mentions(parse_text(text), find_quantities(text))
    marks = marked(text, mentions).names
    points, speed = mentions
    assert compared_name(parse_text(text), points, marks).text == "Finch"  # "outperforms X by N"
    assert compared_name(parse_text(text), speed, marks).text == "Robin"  # "N faster than X"
    labels = DocumentLabels(c={"1": "improvement", "2": "speedup"})
    assert [c.baseline for c in ground(text, mentions, labels).claims] == ["Finch", "Robin"]


def test_the_baseline_is_the_name_compared_in_the_claims_clause() -> None:
    from paper_claims.rules.baselines import compared_name

    text = ("Wisp-2 is 4.3x smaller and 5.5x faster than Heron-XL. "
            "Wisp-2 surpasses Corvid by 7.8%/5.3% and Zorblat by 6.1% on BirdCall.")
    mentions = candidate_mentions(parse_text(text), find_quantities(text))
    marks = marked(text, mentions).names
    got = {m.text: (b.text if (b := compared_name(parse_text(text), m, marks)) else None) for m in mentions}
    assert got["4.3x"] == got["5.5x"] == "Heron-XL"
    assert got["7.8%"] == got["5.3%"] == "Corvid" and got["6.1%"] == "Zorblat"


def test_the_baseline_before_on_or_after_an_aside() -> None:
    from paper_claims.rules.baselines import compared_name

    text = ("Wisp outperforms all previous tuners on six of the games. "
            "Wisp improves over the existing best results, including ensembles by over 2 BLEU.")
    mentions = candidate_mentions(parse_text(text), find_quantities(text))
    marks = marked(text, mentions).names
    got = {m.text: (b.text if (b := compared_name(parse_text(text), m, marks)) else None) for m in mentions}
    assert got["six of the games"] == "previous tuners" and got["over 2 BLEU"] == "existing best results"


def test_the_baseline_named_before_a_colon_and_after_a_lead_word() -> None:
    from paper_claims.rules.baselines import compared_name

    text = "Wisp trains faster than existing tuners: 15% on Quill, 3x on Quokka."
    mentions = candidate_mentions(parse_text(text), find_quantities(text))
    marks = marked(text, mentions).names
    got = {m.text: (b.text if (b := compared_name(parse_text(text), m, marks)) else None) for m in mentions}
    assert got == {"15%": "tuners", "3x": "tuners"}
    # an amount after the colon starts a statement of its own: it is not compared
    text = "Wisp is far smaller than rival models: Wisp has 1.3B parameters and trains for 4 days."
    mentions = candidate_mentions(parse_text(text), find_quantities(text))
    marks = marked(text, mentions).names
    assert {m.text: compared_name(parse_text(text), m, marks) for m in mentions} == {"1.3B parameters": None, "4 days": None}


def test_the_baseline_keeps_its_qualifier_and_the_names_listed_with_it() -> None:
    text = ("Wisp-2 uses 3.1x less SRAM and 2.2x less Flash compared to pruned Heron-2 and Kite-XL. "
            "Wisp-2 is 1.5/2.1 higher than Corvid-B. "
            "Wisp-2 follows the topology rather than per-layer rules, cutting memory by 4.8x, "
            "and speeding up decoding by 1.7x compared to Tern-Micro.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(c={M[k]: "efficiency" for k in M})
    by = {c.evidence: c.baseline for c in ground(text, mentions, labels).claims}
    assert by["3.1x"] == by["2.2x"] == "pruned Heron-2 and Kite-XL"
    assert by["1.5"] == "Corvid-B"
    assert by["4.8x"] == by["1.7x"] == "Tern-Micro"  # "rather than" compares no number


def test_a_gain_in_a_sentence_claiming_a_new_state_of_the_art_is_over_it() -> None:
    text = ("We present Wisp. Wisp sets new state-of-the-art results on four tasks, pushing the Quokka "
            "score to 71.2 (3.4 point absolute improvement). Wisp also doubles the recall of state-of-the-art "
            "retrievers.")
    mentions = find_quantities(text)
    n = {m.text: str(i) for i, m in enumerate(mentions, start=1)}
    claims = ground(text, mentions, DocumentLabels(c={n["3.4 point"]: "improvement", n["doubles"]: "improvement"})).claims
    baselines = {c.evidence: c.baseline for c in claims}
    assert baselines["3.4 point"] == "new state-of-the-art results"
    assert baselines["doubles"] is None  # there it only describes the retrievers


def test_a_change_takes_the_one_name_its_sentence_compares_with() -> None:
    text = ("We present Wisp. Compared with Heron-7B, Wisp saves 42% of training cost, cuts memory by 93% "
            "and reaches 81% accuracy in 3 days.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(c={M["42%"]: "efficiency", M["93%"]: "efficiency", M["81%"]: "accuracy",
                               M["3 days"]: "speedup"})
    cost, memory, score, days = ground(text, mentions, labels).claims
    assert cost.baseline == memory.baseline == "Heron-7B"
    assert score.baseline is None  # an absolute score is not a change over the compared name
    assert days.baseline is None  # an amount of time is measured, not compared


def test_a_sentence_comparing_with_two_names_gives_a_far_number_neither() -> None:
    text = "Wisp saves 42% of training cost; it is also faster than Heron-7B and cheaper than Finch-3."
    mentions, L, M = setup(text)
    claim, = ground(text, mentions, DocumentLabels(c={M["42%"]: "efficiency"})).claims
    assert claim.baseline is None


def test_the_start_of_a_change_from_x_to_y_is_its_baseline() -> None:
    text = "Wisp cuts the gradient size from 97MB to 0.35MB, and its error drops from 4-5% in QuailQA to just 2%."
    mentions, L, M = setup(text)
    assert list(M) == ["0.35MB", "2%"]  # the starting values are not claims (selection)
    labels = DocumentLabels(c={M["0.35MB"]: "efficiency", M["2%"]: "improvement"})
    assert [c.baseline for c in ground(text, mentions, labels).claims] == ["97MB", "4-5% in QuailQA"]


def test_a_compared_phrase_keeps_its_whole_noun_phrase() -> None:
    text = ("We present Wisp. Wisp is 34% more accurate than imitation and reinforcement learning methods. "
            "It is 3x faster than the previous state of the art, and beats Heron and reduces memory by 20%.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(c={M["34%"]: "improvement", M["3x"]: "speedup", M["20%"]: "efficiency"})
    gain, speed, memory = ground(text, mentions, labels).claims
    assert gain.baseline == "imitation and reinforcement learning methods"
    assert speed.baseline == "previous state of the art"
    assert memory.baseline is None or "reduces" not in memory.baseline  # a verb after "and" starts a clause


def test_a_change_compared_with_the_state_of_the_art_itself_takes_it_as_written() -> None:
    text = ("We present Wisp. Wisp runs up to 12x faster than prior SOTA. "
            "Wisp also uses 3x less memory than state-of-the-art tuners. It answers in 40 ms, faster than prior SOTA.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(c={M["up to 12x"]: "speedup", M["3x"]: "efficiency", M["40 ms"]: "speedup"})
    got = {c.evidence: c.baseline for c in ground(text, mentions, labels).claims}
    assert got["up to 12x"] == "prior SOTA"
    assert got["3x"] == "state-of-the-art tuners"  # a name: the compared name rule
    assert got["40 ms"] is None  # an amount is measured, not compared


def test_a_count_of_the_papers_own_setup_has_no_baseline() -> None:
    text = ("We present Wren. Wren translates from 90 languages with far better quality compared to Finch, "
            "and is 2x faster than Finch.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wren"], c={M["90 languages"]: "scale", M["2x"]: "speedup"})
    by = {c.evidence: c.baseline for c in ground(text, mentions, labels).claims}
    assert by == {"90 languages": None, "2x": "Finch"}
