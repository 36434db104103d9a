"""The live follower, apart from :mod:`kubesched.ui` because it needs the ``live`` extra
(the informers' client): ``from kubesched.ui.live import LiveFollower``."""

from ._live import LiveFollower

__all__ = ["LiveFollower"]
