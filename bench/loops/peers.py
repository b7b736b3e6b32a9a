"""The peer detectors of the loop benchmark, run in the bench-only venv (setup-peers.sh):
OpenHands' StuckDetector (openhands-sdk; `is_stuck()` and its action-error nudge) and
agent-watchdog, on the same trajectories.

    bench/loops/.peers-venv/bin/python bench/loops/peers.py [trajectories.jsonl]

prints {"openhands": {id: step|null}, "agent-watchdog": {...}} as JSON on stdout.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
import uuid
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENHANDS_SUPPRESS_BANNER", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network at import

from loopbench import DATA, Flags, Trajectory, load, result_text


def run_openhands(trajs: list[Trajectory]) -> Flags:
    from openhands.sdk.agent import Agent
    from openhands.sdk.conversation.state import ConversationState
    from openhands.sdk.conversation.stuck_detector import StuckDetector
    from openhands.sdk.event import ActionEvent, AgentErrorEvent, MessageEvent, ObservationEvent
    from openhands.sdk.llm import LLM, Message, MessageToolCall, TextContent
    from openhands.sdk.tool import Action, Observation
    from openhands.sdk.workspace import LocalWorkspace

    class BenchToolAction(Action):
        """A tool call of the trajectory: its tool and its arguments as the model sent them."""

        tool: str
        arguments: str

    class BenchToolObservation(Observation):
        """A tool's result text."""

    agent = Agent(llm=LLM(model="gpt-4o-mini", usage_id="loopbench"))
    workdir = Path(os.environ.get("TMPDIR", "/tmp"))

    def new_state() -> tuple[Any, StuckDetector]:
        state = ConversationState.create(
            id=uuid.uuid4(), agent=agent, workspace=LocalWorkspace(working_dir=str(workdir))
        )
        return state, StuckDetector(state)

    def text_message(source: str, role: str, text: str) -> MessageEvent:
        return MessageEvent(
            source=source, llm_message=Message(role=role, content=[TextContent(text=text)])
        )

    out: Flags = {}
    for traj in trajs:
        state, detector = new_state()
        flag = None
        for i, ev in enumerate(traj["events"]):
            kind = ev["type"]
            if kind == "user":
                state.events.append(text_message("user", "user", ev["text"]))
            elif kind == "message":
                state.events.append(text_message("agent", "assistant", ev["text"]))
            elif kind == "session":
                state, detector = new_state()
                continue
            elif kind == "workspace":
                continue
            elif kind == "call":
                call_id = f"call_{i}"
                arguments = json.dumps(ev["args"], ensure_ascii=False)
                thought = [TextContent(text=ev["thought"])] if ev.get("thought") else []
                action = ActionEvent(
                    source="agent",
                    thought=thought,
                    action=BenchToolAction(tool=ev["tool"], arguments=arguments),
                    tool_name=ev["tool"],
                    tool_call_id=call_id,
                    tool_call=MessageToolCall(
                        id=call_id, name=ev["tool"], arguments=arguments, origin="completion"
                    ),
                    llm_response_id=f"response_{i}",
                )
                state.events.append(action)
                if "error" in ev:
                    state.events.append(
                        AgentErrorEvent(
                            error=str(ev["error"]), tool_name=ev["tool"], tool_call_id=call_id
                        )
                    )
                else:
                    state.events.append(
                        ObservationEvent(
                            observation=BenchToolObservation.from_text(result_text(ev["result"])),
                            action_id=action.id,
                            tool_name=ev["tool"],
                            tool_call_id=call_id,
                        )
                    )
            # The SDK nudges the model once an action-error streak reaches its threshold and
            # stops the run when it is stuck; either is a flag (as crs's NUDGE is).
            if detector.get_action_error_nudge() is not None or detector.is_stuck():
                flag = i
                break
        out[traj["id"]] = flag
    return out


def run_watchdog(trajs: list[Trajectory]) -> Flags:
    from agent_watchdog import AgentWatchdog, WatchdogHalt

    out: Flags = {}
    for traj in trajs:
        wd = AgentWatchdog(timeout_seconds=None)  # replayed: wall time means nothing here
        flag = None
        segments: list[list[tuple[int, dict[str, Any]]]] = [[]]
        for i, ev in enumerate(traj["events"]):
            if ev["type"] == "session":
                segments.append([])
            elif ev["type"] == "call":
                segments[-1].append((i, ev))
        for seg in segments:
            current = None
            try:
                with wd.watch(traj["id"]):
                    for i, ev in seg:
                        current = i
                        output = ev["error"] if "error" in ev else result_text(ev["result"])
                        wd.record_tool_call(ev["tool"], args=ev["args"], output=output)
            except WatchdogHalt:
                assert current is not None
                flag = current - 1  # it decides when the call is made, before it runs
                break
        out[traj["id"]] = flag
    return out


def main() -> None:
    logging.disable(logging.WARNING)
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else DATA
    trajs = load(path)
    with contextlib.redirect_stdout(sys.stderr):  # agent-watchdog prints its halts
        result = {"openhands": run_openhands(trajs), "agent-watchdog": run_watchdog(trajs)}
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
