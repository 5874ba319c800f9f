"""Model names: the offline baseline's, litellm's, and how a model is named to users."""

from __future__ import annotations

#: the model name that selects the offline baseline
OFFLINE = "offline"
#: litellm's provider prefix of the offline models (``pxp-offline/<task>``, ``pxp-offline/checker``)
OFFLINE_PROVIDER = "pxp-offline"
#: the offline AGREE checker (TF-IDF)
OFFLINE_CHECKER = f"{OFFLINE_PROVIDER}/checker"
#: the offline CRIT judge of EVINCE's final distribution (a baseline: entropy and wording, no reading)
OFFLINE_JUDGE = f"{OFFLINE_PROVIDER}/crit"


def litellm_model(model: str, task: str) -> str:
    """The litellm model string for a user's ``--model`` value."""
    if model == OFFLINE:
        return f"{OFFLINE_PROVIDER}/{task}"
    return model


def checker_model(model: str) -> str:
    """The litellm model string for a user's ``--checker`` value (``offline``: the TF-IDF checker)."""
    return OFFLINE_CHECKER if model == OFFLINE else model


def judge_model(model: str) -> str:
    """The litellm model string of the CRIT judge for a run's checker model (``offline``: the offline judge)."""
    return OFFLINE_JUDGE if model == OFFLINE else model


def is_offline(model: str) -> bool:
    return model == OFFLINE or model.startswith(f"{OFFLINE_PROVIDER}/")


def model_label(model: str) -> str:
    """How a model is named to users: the offline machine is always called a baseline."""
    if model.startswith(OFFLINE_CHECKER):
        return "offline TF-IDF checker"
    if is_offline(model):
        return "offline baseline"
    return model.replace(OFFLINE_CHECKER, "offline TF-IDF checker")  # e.g. the proxy's note
