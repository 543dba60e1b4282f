"""paper_claims.rules.devices: what a device phrase is (invented abstracts)."""

from __future__ import annotations

from paper_claims.parse.quantities import find_quantities
from paper_claims.rules.selection import candidate_mentions
from paper_claims.schemas import DocumentLabels
from paper_claims.parse.document import parse_text
from tests.invented import setup, ground, marked


def test_a_device_word_that_modifies_another_noun_or_a_real_robot_is_no_hardware() -> None:
    text = ("We present Wisp, a trainer. Wisp cuts single-GPU training time by 40% on 8 Z900 GPUs, "
            "covers six core skills, and runs 2x faster on physical robots and high-end GPUs than Heron-9B.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L[k]: "hardware" for k in L if k not in ("Wisp", "Heron-9B")},
                            c={M["40%"]: "speedup", M["2x"]: "speedup"})
    assert ground(text, mentions, labels).hardware == ["8 Z900 GPUs"]


def test_a_singular_device_word_before_a_noun_modifies_it_also_where_the_model_did_not_read() -> None:
    text = ("We present Wisp, a low-latency robot controller, and we size the elastic cluster pool by hand. "
            "Wisp reaches 2x on a mobile robot that picks boxes, and on the Zeta chip with 3 arms.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L[k]: "hardware" for k in L if k != "Wisp"}, c={M["2x"]: "speedup"})
    hardware = ground(text, mentions, labels).hardware
    assert "mobile robot" in hardware and "Zeta chip" in hardware  # a verb or a function word follows
    assert not any("controller" in h or h.endswith("robot") and "low-latency" in h or "cluster" in h for h in hardware)
    unread = "We present Wisp, a low-latency robot controller for the Zeta chip."
    assert ground(unread, [], DocumentLabels()).hardware == ["Zeta chip"]


def test_a_counted_device_before_a_noun_or_a_phrase_led_by_a_function_word_is_no_hardware() -> None:
    from paper_claims.rules.devices import counted_devices

    text = ("Wisp gives a 5x speedup relative to a 4 core edge computer with only a small loss. "
            "It runs on 8 Z900 GPUs, even if fewer cores are free.")
    mentions = candidate_mentions(parse_text(text), find_quantities(text))
    assert [(text[m.start:m.end], counted_devices(parse_text(text), m)) for m in mentions if m.unit != "x"] == [
        ("4 core", None), ("8 Z900 GPUs", "8 Z900 GPUs")]
    _, L, M = setup(text)
    labels = DocumentLabels(e={L[k]: "hardware" for k in L if "cores" in k}, c={M["5x"]: "speedup"})
    # "4 core" counts no devices; the computer it describes is one ("fewer cores" is none)
    assert ground(text, mentions, labels).hardware == ["4 core edge computer", "8 Z900 GPUs"]


def test_a_number_that_counts_devices_names_them_with_the_count() -> None:
    text = "We present Wisp, a trainer. Wisp reaches 55% utilization on up to 1024 Zeta TPUv9 cores and on 2--4 Q7s."
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], c={M[k]: "scale" for k in M})
    result = ground(text, mentions, labels)
    assert "1024 Zeta TPUv9 cores" in result.hardware
    by = {c.evidence: c.hardware for c in result.claims}
    assert by["up to 1024 Zeta TPUv9 cores"] == "1024 Zeta TPUv9 cores"


def test_a_devices_memory_and_a_description_of_a_later_name_are_no_hardware() -> None:
    text = ("We evaluate a custom ASIC---called a Zeta Processing Unit (ZPU)---that cuts reads of GPU memory by 3x "
            "and runs 2x faster on 8 Z900 GPUs.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(e={L[k]: "hardware" for k in L}, c={M["3x"]: "efficiency", M["2x"]: "speedup"})
    assert ground(text, mentions, labels).hardware == ["8 Z900 GPUs"]  # not "custom ASIC", not "GPU"
    text = "Our stack runs on multicore CPUs and on custom ASICs known as Zeta Processing Units (ZPUs), 2x faster than before."
    mentions, L, M = setup(text)
    labels = DocumentLabels(e={L[k]: "hardware" for k in L}, c={M["2x"]: "speedup"})
    assert "custom ASICs" not in ground(text, mentions, labels).hardware and "ASICs" not in ground(text, mentions, labels).hardware


def test_a_device_is_listed_with_the_group_word_after_it() -> None:
    text = "We present Wisp, a trainer. Wisp trains in 76 minutes on a Zeta TPUv9 pod."
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L["Zeta TPUv9"]: "hardware"}, c={M["76 minutes"]: "speedup"})
    assert ground(text, mentions, labels).hardware == ["Zeta TPUv9 pod"]


def test_a_device_word_that_is_not_the_head_of_the_name_names_no_device() -> None:
    from paper_claims.rules.devices import _device_not_head

    assert _device_not_head("GPU-aware MPI") and _device_not_head("current CPU OpenMP")
    assert _device_not_head("GPU-accelerated solver")
    # the head is the device, the words after it qualify it, or the name is a known family
    for name in ("single GPU with 24GB memory", "T4 GPU (16GB)", "GPU cluster", "Zeta 4 phone", "NVIDIA Titan XP",
                 "FPGA-based deep learning accelerator", "Tensor Processing Unit (TPU)", "Jetson AGX Orin",
                 "Intel E3-1999v9", "AMD EPYC 9999"):
        assert not _device_not_head(name), name


def test_a_device_word_after_a_preposition_prefix_says_where_not_what() -> None:
    text = ("On-device tuning is hard. We present Wisp, which keeps off-chip traffic low and makes on-device "
            "tuning 3x faster on the Zeta chip.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L[k]: "hardware" for k in L if k != "Wisp"}, c={M["3x"]: "speedup"})
    assert ground(text, mentions, labels).hardware == ["Zeta chip"]


def test_a_class_of_devices_given_examples_is_not_listed_but_its_examples_are() -> None:
    text = ("We present Wisp. Wisp runs 3x faster on wearable devices such as Zeta 4 phones and on "
            "wearable devices at large.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L[k]: "hardware" for k in L if k != "Wisp"}, c={M["3x"]: "speedup"})
    assert ground(text, mentions, labels).hardware == ["wearable devices", "Zeta 4 phones"]  # not every time
    text = "We present Wisp. Wisp runs 3x faster on wearable devices such as Zeta 4 phones."
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L[k]: "hardware" for k in L if k != "Wisp"}, c={M["3x"]: "speedup"})
    assert ground(text, mentions, labels).hardware == ["Zeta 4 phones"]


def test_a_phrase_led_by_any_closed_class_word_is_no_device() -> None:
    from paper_claims.rules.devices import no_device
    
    text = "Wisp scales beyond what commodity server racks hold, to the Zeta chip."
    marks = {m.text: m for m in marked(text, []).names}
    assert no_device(parse_text(text), marks["beyond what commodity server"])
    assert not no_device(parse_text(text), marks["Zeta chip"])


def test_a_claims_bare_class_word_is_the_one_named_device_of_its_class_the_list_gives() -> None:
    text = ("We present Wisp, a trainer. We train it on 512 Z900 GPUs. "
            "Wisp reaches GPU throughputs of 41% and cuts memory by 3x.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L[k]: "hardware" for k in L if k != "Wisp"},
                            c={M["512 Z900 GPUs"]: "scale", M["41%"]: "efficiency", M["3x"]: "efficiency"})
    grounded = ground(text, mentions, labels)
    assert grounded.hardware == ["512 Z900 GPUs"]
    assert [c.hardware for c in grounded.claims if c.evidence == "41%"] == ["512 Z900 GPUs"]


def test_a_bare_class_word_stays_when_two_listed_devices_are_of_its_class() -> None:
    from paper_claims.rules.devices import as_listed
    assert as_listed("GPU", ["8 Z900 GPUs"]) == "8 Z900 GPUs"
    assert as_listed("GPU", ["8 Z900 GPUs", "Q7 GPU"]) == "GPU"
    assert as_listed("Q7", ["8 Z900 GPUs", "Q7 GPU"]) == "Q7"
    assert as_listed(None, ["Q7 GPU"]) is None


def test_a_single_device_a_result_is_run_on_is_hardware_but_elsewhere_names_nothing() -> None:
    text = ("We present Wisp, a server. Beyond the memory of a single accelerator, "
            "Wisp serves 40 tokens per second on a single node with 8GB memory.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L[k]: "hardware" for k in L if k != "Wisp"},
                            c={M[next(k for k in M if k.startswith("40"))]: "speedup"})
    grounded = ground(text, mentions, labels)
    assert grounded.hardware == ["single node"]
    assert [c.hardware for c in grounded.claims] == ["single node"]


def test_a_device_word_before_the_work_run_on_it_names_no_device() -> None:
    text = ("We present Wisp, a network stack. Older stacks spend half of their CPU cycles in the kernel. "
            "Wisp adds new sparse GPU kernels and runs 3x faster on 4 Z900 GPUs.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L[k]: "hardware" for k in L if k != "Wisp"},
                            c={M["3x"]: "speedup"})
    assert ground(text, mentions, labels).hardware == ["4 Z900 GPUs"]


def test_a_device_word_before_an_ing_noun_modifies_it_but_before_a_verb_names_a_device() -> None:
    text = ("We present Wisp, a method that beats robot learning baselines and network server operating "
            "systems. Wisp runs 2x faster on a mobile robot picking boxes.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L[k]: "hardware" for k in L if k != "Wisp"}, c={M["2x"]: "speedup"})
    assert ground(text, mentions, labels).hardware == ["mobile robot"]


def test_a_part_of_a_processor_is_hardware_only_counted() -> None:
    text = ("We present Wisp, a climate model with a spectral dynamical core. Kernels on slow Zorblat cores "
            "bound its speed; Wisp runs 3x faster on 512 Quark cores and scales to sixteen Zeta cores.")
    mentions, L, M = setup(text)
    labels = DocumentLabels(s=L["Wisp"], e={L[k]: "hardware" for k in L if k != "Wisp"}, c={M["3x"]: "speedup"})
    hardware = ground(text, mentions, labels).hardware
    assert not any("dynamical" in h or "Zorblat" in h for h in hardware)  # a part, or another field's word
    assert any("512 Quark cores" in h for h in hardware) and any("Zeta cores" in h for h in hardware)


def test_a_count_of_cores_names_the_computer_they_are_in() -> None:
    text = ("We present Wisp, a network stack for machine learning. On an 8-core machine Wisp is 25x faster "
            "than the stock stack, and 3x faster than a 4 core edge computer; the state machine stays small.")
    mentions, L, M = setup(text)
    assert "8-core machine" in L and "4 core edge computer" in L  # proposed, though "machine" ends no class phrase
    labels = DocumentLabels(s=L["Wisp"], e={L["8-core machine"]: "hardware"}, c={M["25x"]: "speedup", M["3x"]: "speedup"})
    result = ground(text, mentions, labels)
    assert "8-core machine" in result.hardware and "4 core edge computer" in result.hardware
    assert not any("state machine" in h or "learning" in h for h in result.hardware)
    assert ground(text, [], DocumentLabels()).hardware == ["8-core machine", "4 core edge computer"]  # by its own words
