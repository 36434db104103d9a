"""The ImageLocality Score plugin."""

from .image_locality import NAME, ImageLocality, normalized_image_name

__all__ = ["NAME", "ImageLocality", "normalized_image_name"]
