"""Model families and optimizers from outside sources: is a name a well-known model family, or
a training optimizer (which is a method, not a model)?

The families are the model types of the Hugging Face ``transformers`` library (the keys of
``CONFIG_MAPPING_NAMES`` and ``MODEL_NAMES_MAPPING`` in ``models/auto/configuration_auto.py``,
late 2025), versions and variant suffixes dropped: broad outside knowledge of which names
are models (GPT, Llama, Qwen, BERT, ResNet, CLIP, Whisper...), not names taken from any
annotated abstract. A name belongs to a family when its first word, versions aside, is one.
"""

from __future__ import annotations

import re

_TYPES = """
afmoe aimv2 albert align altclip apertus arcee aria audioflamingo autoformer aya bamba bark bart barthez bartpho
beit bert bertweet bigbird biogpt bit bitnet blenderbot blip bloom blt bridgetower bros byt5 camembert canine
chameleon clap clip clipseg clvp codellama codegen cohere colpali colqwen convbert convnext cpm cpmant csm ctrl cvt
cwm dfine dabdetr dac data2vec dbrx deberta deepseek deit deplot depthanything depthpro detr dialogpt diffllama
dinat dinov2 distilbert dit doge dpr dpt edgetam efficientloftr efficientnet electra emu3 encodec eomt ernie esm
evolla exaone falcon fastspeech2 flan flaubert flava flexolmo florence2 fnet focalnet fsmt funnel fuyu gemma git
glm glpn gpt gpt2 gptj granite groundingdino groupvit helium herbert hgnet hiera hubert hunyuan ibert idefics ijepa
imagegpt informer instructblip internvl jais jamba janus jetmoe kosmos layoutlm layoutxlm led levit lfm2
lightglue lilt llama llava longcat longformer longt5 luke lxmert m2m100 madlad mamba marian markuplm mask2former
maskformer matcha mbart megatron metaclip mgpstr mimi minimax ministral mistral mixtral mlcd mllama mluke mms
mobilebert mobilenet mobilevit modernbert moonshine moshi mpnet mpt mra mt5 musicgen mvp myt5 nanochat nemotron
nllb nougat nystromformer olmo olmoe omdet oneformer openai opt ovis2 owlv2 owlvit paligemma parakeet patchtsmixer
patchtst pegasus perceiver persimmon phi phimoe phobert pix2struct pixtral plbart poolformer pop2piano prophetnet
pvt qwen recurrentgemma reformer regnet rembert resnet roberta rocbert roformer rwkv sam seamlessm4t segformer
seggpt sew shieldgemma siglip smollm3 smolvlm speecht5 splinter squeezebert stablelm starcoder2 superglue
superpoint swiftformer swin swin2sr swinv2 t5 t5gemma tapas textnet timesfm timesformer trocr tvp udop umt5
unispeech univnet upernet vaultgemma videollama videollava videomae vilt vipllava visualbert vit vitdet vitmatte
vitpose vits vivit vjepa2 voxtral wav2vec2 wavlm whisper xclip xcodec xglm xlm xlnet xlstm xmod yolos yoso zamba
zoedepth
""".split()


def _stem(word: str) -> str:
    """A word lower-cased, letters and digits only, a trailing version dropped when at
    least three letters stay ("Qwen2.5" -> "qwen", "MobileNetV2" -> "mobilenet", "T5" -> "t5")."""
    word = re.sub(r"[^a-z0-9]", "", word.lower())
    stem = re.sub(r"v?\d+$", "", word)
    return stem if len(stem) >= 3 else word


_FAMILIES = frozenset(_stem(name) for name in _TYPES)


def model_family(name: str) -> bool:
    """True when the name's first word is a known model family ("Llama-3-70b", "GPT-4o",
    "Qwen2.5-Math-7B", "BERT_BASE", "wav2vec 2.0"); "Transformer" or "ImageNet" are not."""
    first = re.split(r"[\s_/-]+", name.strip(), maxsplit=1)[0]
    return bool(first) and first[0].isalpha() and _stem(first) in _FAMILIES


# the optimizers of torch.optim and of timm.optim (pytorch-image-models, its __init__ late 2025):
# optimization algorithms, which GUIDELINES.md does not count as models
_OPTIMIZERS = frozenset("""
adadelta adafactor adagrad adahessian adabelief adam adamax adamp adamw adan adopt asgd lamb laprop lars lbfgs
lion lookahead madgrad mars nadam nadamw novograd nvnovograd radam rmsprop rmsproptf rprop sgd sgdp sgdw
sparseadam muon
""".split())


def optimizer_name(name: str) -> bool:
    """True when the name's last word is a well-known optimizer ("SGD", "minibatch SGD", "AdamW")."""
    words = re.split(r"[\s_/]+", name.strip())
    return bool(words) and re.sub(r"[^a-z]", "", words[-1].lower()) in _OPTIMIZERS
