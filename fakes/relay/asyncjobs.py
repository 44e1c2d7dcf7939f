"""Asynchronous providers: a submission answered ``202`` with a handle to poll, settled when the
provider finishes (the package's ``application/call/service.py`` defers a metered submission's
settlement, ``application/asynctasks.py`` settles it at the terminal poll; a poll of one's own task
is free).

A simulated async entry (``kind: async``, e.g. ``firmdata.reports.create``) answers its submission
with ``202 {"task_id", "status": "pending", "poll": {"endpoint_id", "params"}, "ready_in_s"}``; on the
relay's key the estimate stays held. Its poll entry (``kind: async_poll``, ``firmdata.reports.get``,
free) answers ``pending`` until ``async_task_s`` seconds of the fake's clock have passed, then
``complete`` with the result, and the hold is settled at the entry's price at that moment (at the
first poll, or at the first balance read after it: the relay's own worker, on the clock). A task
is only visible to the team that submitted it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Protocol

from fakes.kernel.clock import MAX_EPOCH_MS
from fakes.kernel.statecheck import StateReader, refuse

from . import billing, data
from .catalogue import Entry
from .modelview import ModelView
from .teams import Team

#: how many unfinished tasks a model keeps (the oldest settled ones are dropped first)
MAX_TASKS = 10_000


@dataclass(slots=True)
class Task:
    task_id: str
    team_id: str
    call_id: str  # the submission's call: its hold, and the ledger row of the settlement
    entry_id: str
    provider: str
    credential: str
    estimate: int  # held on the relay's key until settled
    ready_ms: int
    domain: str
    settled: bool = False
    charged: int = 0


class JobsModel(ModelView, Protocol):
    """The model as the asynchronous jobs see it: its tasks beside what the rules read."""

    tasks: dict[str, Task]


def submission(model: JobsModel, team: Team, call_id: str, entry: Entry, params: dict[str, str], credential: str,
               estimate: int, now: int) -> tuple[int, dict[str, Any], Task]:
    """A simulated submission: the task, held on the relay's key; (202, body, task)."""
    task_id = f"task_{data.token_text(model.seed, 'task', call_id)[:16]}"
    poll_id = entry.get("poll") or entry["id"]
    task = Task(task_id, team.team_id, call_id, entry["id"], entry["provider"], credential, estimate,
                now + model.settings.async_task_s * 1000, params.get("domain", ""))
    model.tasks[task_id] = task
    if estimate:
        team.hold(call_id, estimate, entry["id"])
    if len(model.tasks) > MAX_TASKS:
        for old in [t for t in model.tasks.values() if t.settled][: len(model.tasks) - MAX_TASKS]:
            del model.tasks[old.task_id]
    return 202, {"task_id": task_id, "status": "pending", "ready_in_s": model.settings.async_task_s,
                 "poll": {"endpoint_id": poll_id, "params": {"task_id": task_id}}}, task


def poll(model: JobsModel, team: Team, params: dict[str, str], now: int) -> tuple[int, dict[str, Any]]:
    """A simulated poll (free): the provider's 404 for a task this team does not own."""
    task = model.tasks.get(params.get("task_id", ""))
    if task is None or task.team_id != team.team_id:
        return 404, {"error": "not_found", "message": "no such task"}
    if now < task.ready_ms:
        return 200, {"task_id": task.task_id, "status": "pending", "ready_in_s": -(-(task.ready_ms - now) // 1000)}
    settle(model, team, task, now)
    rng = data.rng_for(model.seed, "task result", task.task_id)
    report = {**data.company(rng, task.domain or "northwind.com"), "signals": rng.randint(1, 9)}
    return 200, {"task_id": task.task_id, "status": "complete", "result": report}


def settle(model: JobsModel, team: Team, task: Task, now: int) -> None:
    if task.settled:
        return
    task.settled = True
    entry = model.entry(task.entry_id)
    price = entry["cost"] if entry is not None else None
    charged = billing.charge(price, 200, {"status": "complete"}, task.estimate) if task.credential == "relay_key" \
        else 0
    task.charged = charged
    if task.credential == "relay_key":
        team.settle(task.call_id, charged, now, task.entry_id)


def settle_due(model: JobsModel, team: Team) -> None:
    """Settle this team's tasks that finished (what the relay's async worker does on the clock)."""
    if not model.tasks:
        return
    now = model.clock.now_ms()
    for task in model.tasks.values():
        if not task.settled and task.team_id == team.team_id and task.ready_ms <= now:
            settle(model, team, task, now)


def to_state(model: JobsModel) -> list[dict[str, Any]]:
    return [asdict(task) for task in model.tasks.values()]


def load(model: JobsModel, read: StateReader) -> None:
    read.only(Task.__slots__)
    task = Task(read.text("task_id", min_length=1, max_length=100), read.text("team_id", max_length=30),
                read.text("call_id", max_length=200), read.text("entry_id", max_length=500),
                read.text("provider", max_length=100), read.choice("credential", ("own_tool", "secret", "relay_key")),
                read.integer("estimate", minimum=0, maximum=10**13),
                read.integer("ready_ms", minimum=0, maximum=MAX_EPOCH_MS), read.text("domain", max_length=300),
                read.boolean("settled"), read.integer("charged", minimum=0, maximum=10**13))
    team = model.teams.get(task.team_id)
    if team is None:
        refuse(read.where("team_id"), "names no team of this state")
    if model.entry(task.entry_id) is None:
        refuse(read.where("entry_id"), "names no catalogue entry")
    if task.task_id in model.tasks:
        refuse(read.where("task_id"), "repeats another task")
    model.tasks[task.task_id] = task
    if not task.settled and task.credential == "relay_key" and task.estimate:
        if task.estimate > team.available_micro:
            refuse(read.where("estimate"), "is more than the team's balance can hold")
        team.hold(task.call_id, task.estimate, task.entry_id)
