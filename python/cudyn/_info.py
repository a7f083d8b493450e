"""cudyn.info(): the facts ``cudainfo --json`` shows, as one dict."""

from . import _cudyn


def _error_facts(e):
    return {"status": getattr(e, "status_name", type(e).__name__), "error": str(e),
            "hint": getattr(e, "hint", None) or None}


def info():
    """A dict with ``cudyn_version``, ``loader`` (the driver and NVRTC paths,
    how they were found, their versions, the search trace), ``status`` and
    ``error`` when the driver cannot be used, ``device_count``, ``devices``
    (one dict per device: every field of ``cudyn.device_info``, its free
    memory, or the status and error when it cannot be described) and
    ``cache`` (the kernel cache's directory and size).  Never raises for a
    missing driver: that is a fact too."""
    facts = {"cudyn_version": _cudyn.version(), "status": "CUDYN_OK", "error": None, "hint": None}
    try:
        _cudyn.init()
    except _cudyn.Error as e:
        facts.update(_error_facts(e))
    try:
        facts["loader"] = _cudyn.loader_info()
    except _cudyn.Error as e:
        facts["loader"] = _error_facts(e)
    devices = []
    count = 0
    if facts["error"] is None:
        try:
            count = _cudyn.device_count()
        except _cudyn.Error as e:
            facts.update(_error_facts(e))
    for ordinal in range(count):
        row = {"ordinal": ordinal}
        try:
            row.update(_cudyn.device_info(ordinal))
            row["status"] = "CUDYN_OK"
        except _cudyn.Error as e:
            row.update(_error_facts(e))
        devices.append(row)
    facts["device_count"] = count
    facts["devices"] = devices
    try:
        facts["cache"] = _cudyn.cache_info()
    except _cudyn.Error as e:
        facts["cache"] = _error_facts(e)
    return facts
