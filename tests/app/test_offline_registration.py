"""A task's offline models (``pxp-offline/<task>``, ``pxp-offline/<task>-second``) answer exactly when they have
been registered, and they are registered where a run is wired: an import the layer contracts see.

Loading a task registers nothing (a task calls no model); building a run's machine does
(``runs.seats.build_machine``), so ``pxp run``, the app and ``pxp repeat`` have them.
"""

from __future__ import annotations

import json

import pytest

from pxp_harness.outside import python_output

#: in a fresh interpreter (the registrations are the process's): each offline model asked before anything
#: registered it, after the task was loaded, and after the run's machine was built
ASK = """
import asyncio, json
from pxp_tui.agents.llm import LLMClient
from pxp_tui.engine import AgentError

async def answers(model):
    try:
        return bool((await LLMClient(model, retries=0).complete([{"role": "user", "content": "Target: CCO"}])).text)
    except AgentError as exc:
        return str(exc)

async def main():
    seen = {}
    models = ["pxp-offline/drug", "pxp-offline/drug-second", "pxp-offline/rad"]
    seen["nothing"] = [await answers(m) for m in models]
    from pxp_tui.tasks import get_task
    task = get_task("drug")
    seen["task loaded"] = [await answers(m) for m in models]
    from pxp_tui.config import RunConfig
    from pxp_tui.runs.seats import build_machine
    build_machine(task, RunConfig(task="drug"))
    seen["machine built"] = [await answers(m) for m in models]
    print(json.dumps(seen))

asyncio.run(main())
"""


def test_a_task_s_offline_models_answer_exactly_when_a_run_s_machine_has_registered_them() -> None:
    seen = json.loads(python_output(ASK).splitlines()[-1])
    for moment in ("nothing", "task loaded"):
        assert all("no offline model 'drug" in str(answer) for answer in seen[moment][:2]), (moment, seen[moment])
    assert seen["machine built"][:2] == [True, True]  # the baseline and the second reader of DRUG
    assert "no offline model 'rad'" in str(seen["machine built"][2])  # another task's: not before its run


def test_the_layer_contracts_see_where_the_offline_models_are_registered() -> None:
    grimp = pytest.importorskip("grimp", reason="import-linter's graph (a development tool)")
    graph = grimp.build_graph("pxp_tui")
    assert graph.direct_import_exists(importer="pxp_tui.runs.seats", imported="pxp_tui.agents.offline")
    for layer in ("pxp_tui.tasks", "pxp_tui.config", "pxp_tui.blackboard"):
        assert not graph.chain_exists(importer=layer, imported="pxp_tui.agents.offline", as_packages=True), layer
