"""The zoo of issue 21: torchvision 0.14 architectures, smallest first (parameters in millions).

Each builds with random weights (weights=None; the caller seeds torch first). `size` is the
square input side: 299 for Inception-v3 (its stem needs it), 224 otherwise.
"""
import collections

Spec = collections.namedtuple('Spec', 'name call size mparams')

MODELS = [
    Spec('squeezenet1_1', 'squeezenet1_1()', 224, 1.2),
    Spec('shufflenet_v2_x0_5', 'shufflenet_v2_x0_5()', 224, 1.4),
    Spec('mnasnet1_0', 'mnasnet1_0()', 224, 4.4),
    Spec('regnet_y_400mf', 'regnet_y_400mf()', 224, 4.3),
    Spec('mobilenet_v3_large', 'mobilenet_v3_large()', 224, 5.5),
    Spec('efficientnet_b1', 'efficientnet_b1()', 224, 7.8),
    Spec('googlenet', 'googlenet(aux_logits=False, init_weights=True)', 224, 6.6),
    Spec('densenet121', 'densenet121()', 224, 8.0),
    Spec('inception_v3', 'inception_v3(aux_logits=False, init_weights=True)', 299, 23.8),
    Spec('resnext50_32x4d', 'resnext50_32x4d()', 224, 25.0),
    Spec('convnext_tiny', 'convnext_tiny()', 224, 28.6),
    Spec('swin_t', 'swin_t()', 224, 28.3),
    Spec('alexnet', 'alexnet()', 224, 61.1),
    Spec('wide_resnet50_2', 'wide_resnet50_2()', 224, 68.9),
    Spec('vit_b_32', 'vit_b_32()', 224, 88.2),
    Spec('vgg11', 'vgg11()', 224, 132.9),
]
BY_NAME = collections.OrderedDict((m.name, m) for m in MODELS)


def build(spec):
    import torchvision
    return eval('torchvision.models.' + spec.call, {'torchvision': torchvision})


Spec.build = build
