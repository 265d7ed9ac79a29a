"""The package version, in a base module: the results documents record it, and a module inside evenhand that read
it from the facade (``from evenhand import __version__``) would import the top layer from a lower one."""

from __future__ import annotations

__version__ = "0.1.0"
