import os

_is_cuda = os.environ.get("DEVICE", "cuda") == "cuda"
_use_fast_combine = os.environ.get("FAST_COMBINE") == "1"
