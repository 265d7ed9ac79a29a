"""Backends behind one async interface (:class:`ChatClient`)."""

from .base import ChatClient
from .callable import CallableClient
from .factory import get_client

__all__ = ["CallableClient", "ChatClient", "get_client"]
