"""MAAM core: Myopia (input-side anchor-preserving compression) and Astigmatism (output-side
C-I-S calibration), backbones, training and evaluation. A plain library: no Django, no Celery."""

__version__ = "1.0.0"
