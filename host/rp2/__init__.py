"""The emulated Pico rig (placeholder docstring, completed below)."""

from .images import Images, RigError, find_images
from .rig import Pico

__all__ = ["Images", "Pico", "RigError", "find_images"]
