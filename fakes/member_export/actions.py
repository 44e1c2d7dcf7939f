"""What a member does on the network (control plane only): snapshot rows plus a changelog event.

The public API never writes; these actions stand for the member using the network's own apps, so
a test can make things happen at a chosen virtual time and then watch the export see them. Each
action is planned (validated, described) and applied by the model: a snapshot effect (a row
appended, changed or removed, a profile field overlaid) and, once archiving is on, an event in the
shapes of LinkedIn's "Member Changelog API" resource pages (resource names, methods, methodName
for ACTION, an empty activity for DELETE). Planners live in :mod:`.content_actions` (posts,
comments, reactions, messages, invitations) and :mod:`.profile_actions` (the profile and the rest);
their common parts in :mod:`.action_plan`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .action_plan import CONFIG_VERSIONS, ActionContext, ActionPlan, invalid
from .content_actions import CONTENT_ACTIONS
from .data import DataGenerator, MemberSeed
from .profile_actions import PROFILE_ACTIONS

PLANNERS = {**CONTENT_ACTIONS, **PROFILE_ACTIONS}
ACTIONS = tuple(PLANNERS)
#: The details each action accepts (besides "action"); anything else is refused as a likely typo.
DETAILS: dict[str, frozenset[str]] = {name: accepted | {"delay_s"} for name, (accepted, _) in PLANNERS.items()}


def plan_action(action: Any, details: Mapping[str, Any], *, member: MemberSeed, gen: DataGenerator, n: int,
                now_ms: int, own_delay_s: int, reply_delay_s: int,
                items: Mapping[str, Mapping[str, Any]]) -> ActionPlan:
    """Validate ``details`` and describe the action; ``n`` numbers actions for stable ids."""
    if not isinstance(action, str) or action not in PLANNERS:
        raise invalid(f"'action' must be one of {', '.join(ACTIONS)}")
    unknown = sorted(set(details) - DETAILS[action])
    if unknown:
        raise invalid(f"{action} does not take {', '.join(unknown)}; it takes {', '.join(sorted(DETAILS[action]))}")
    default_delay = reply_delay_s if action == "receive_message" else own_delay_s
    context = ActionContext(action, details, member, gen, n, now_ms, default_delay, items)
    return PLANNERS[action][1](context)


def config_version(plan: ActionPlan) -> int:
    return CONFIG_VERSIONS.get((plan.resource_name, plan.method), 1)
