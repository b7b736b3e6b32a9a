"""Rules of the guard's semantics (issue 12) refined after the fresh10 trajectories of the loop
benchmark (bench/loops, split fresh10) showed them wrong in general; one group per rule, each
with the loop that must still be caught beside the legitimate work that must now pass, and
the neighbours probed for new false alarms."""

from __future__ import annotations

from pathlib import Path

from crs.guard import Guard, _canon
from crs.guard._guard import _READONLY_SHELL
from guard_calls import flags, run

# ------------------------------------------- an answer that is only a handle to something new

_IDS = ["3f9a0b1c2d4e5f60718293a4", "a81c0d9e2f3b4c5d6e7f8091", "0b1c2d3e4f5a6b7c8d9e0fa1"]
_IDS += ["c4d5e6f708192a3b4c5d6e7f", "9e8d7c6b5a4f3e2d1c0b9a88", "7f6e5d4c3b2a19081726354a"]


def _image(sid: str) -> dict[str, str]:
    return {"storageId": sid, "url": f"https://cdn.example.test/api/storage/{sid}"}


def test_a_handle_is_an_answer_whose_every_part_carries_a_generated_id() -> None:
    assert _canon.names_new_id(_image(_IDS[0]))
    assert _canon.names_new_id({"job": {"id": f"job-{_IDS[1][:12]}"}})
    assert _canon.names_new_id(f"https://cdn.example.test/i/{_IDS[2]}")
    # stamp fields aside: a delivery's message id does not make the rest a handle
    assert _canon.names_new_id({"id": _IDS[3], "request_id": "r-1"})


def test_an_id_beside_content_is_no_handle() -> None:
    assert not _canon.names_new_id({"ok": True, "message_id": _IDS[0]})  # a stamp and a flag
    assert not _canon.names_new_id({"status": "queued", "job": _IDS[1]})
    assert not _canon.names_new_id(f"No results for that query (trace {_IDS[2]})")
    assert not _canon.names_new_id("[]")
    assert not _canon.names_new_id([])
    assert not _canon.names_new_id({"url": "https://example.test/a"})
    assert not _canon.names_new_id(42)


def test_variations_of_a_prompt_each_answered_with_a_new_image_pass() -> None:
    """get-convex/agent#167's counterpart: four styles of one banner, four new images."""
    g = Guard()
    got = [
        run(
            g,
            "generateImage",
            {"prompt": f"Flowers framing the words SPRING SALE, {style}, 3:1", "size": "1536x512"},
            _image(sid),
        )
        for style, sid in zip(
            ["pastel flat illustration", "neon outline", "watercolour", "photographic"],
            _IDS,
            strict=False,
        )
    ]
    assert flags(got) == []


def test_the_same_prompt_again_and_again_is_still_a_repeat() -> None:
    g = Guard()
    args = {"prompt": "Flowers framing the words SPRING SALE, pastel, 3:1", "size": "1536x512"}
    got = [run(g, "generateImage", args, _image(sid)) for sid in _IDS]
    assert flags(got) != []


def test_reworded_searches_with_the_same_empty_answer_and_a_trace_id_are_still_a_loop() -> None:
    """An id beside the answer (a trace id, a request id field) keeps near-duplicates: the
    answer is still the same content."""
    for answer in (
        lambda k: f"No results found (trace {_IDS[k]})",
        lambda k: {"results": [], "request_id": _IDS[k]},
    ):
        g = Guard()
        got = [
            run(g, "web_search", {"query": q}, answer(k))
            for k, q in enumerate(
                [
                    "acme x200 firmware changelog",
                    "acme x200 firmware change log",
                    "x200 acme firmware changelog 2026",
                    "acme x200 firmware release notes changelog",
                    "acme x200 changelog firmware",
                    "acme x200 firmware changelog latest",
                ]
            )
        ]
        assert flags(got) != [], answer(0)


# ------------------------------------------- reworded messages that say nothing new


_OFFERS = [
    "The fittings you need are stainless steel 316, rated for chlorinated solvents.",
    "I'm here to assist you further. How may I help you with Parker products or any other "
    "inquiries you might have?",
    "It seems there might be a misunderstanding. If you have any more questions about "
    "Parker products, please let me know how I can help you.",
    "I'm here to help. If you have further questions about Parker products or anything "
    "else, just let me know.",
    "If there is anything else I can help you with regarding Parker products, please let me know.",
    "I'm here to assist with any further questions about Parker products or other "
    "inquiries you may have.",
    "Please let me know if there's anything else I can assist you with regarding Parker products.",
]


def _said(g: Guard, lines: list[str]) -> list[str]:
    return [f"{v.action}:{v.code}" for v in (g.on_message(m) for m in lines) if not v.allowed]


def test_offers_of_help_in_other_words_are_a_monologue() -> None:
    """microsoft/autogen#1406: after its answer the assistant offers further help again and
    again, each time in other words; no tool call, no user turn."""
    g = Guard()
    g.new_turn("What fittings should I use for Trichloroethane?")
    verdicts = [g.on_message(m) for m in _OFFERS]
    assert not all(v.allowed for v in verdicts)  # three offers in a row saying nothing new
    assert all(v.allowed for v in verdicts[:4])


def test_acknowledgements_of_one_request_in_other_words_are_a_monologue() -> None:
    g = Guard()
    g.new_turn("Create a docker build workflow and update docker-compose.yml")
    lines = [
        "Understood. I will create a GitHub Actions workflow docker-build.yml that builds "
        "and pushes the Docker image, and update docker-compose.yml.",
        "Okay, I'll create the GitHub Actions workflow that builds and pushes the Docker "
        "image, then update docker-compose.yml.",
        "Got it. I will create the workflow docker-build.yml to build and push the image, "
        "and update docker-compose.yml.",
        "Understood. I'll create the GitHub Actions workflow and update docker-compose.yml.",
        "Okay. Creating the workflow docker-build.yml and updating docker-compose.yml.",
    ]
    assert _said(g, lines) != []


def test_a_message_said_again_word_for_word_is_left_to_the_cycle_rule() -> None:
    """A period-3 cycle of intents (fresh2's goose schema monologue) is reported once the
    cycle came back, not before its second round is complete."""
    g = Guard()
    g.new_turn("Create the backend schema")
    lines = [
        "I'll write the schema to backend/schema.sql.",
        "Wait, I'll also write the .env for the backend.",
        "Actually, I'll write the schema.",
    ] * 3
    verdicts = [g.on_message(m) for m in lines]
    assert all(v.allowed for v in verdicts[:5])
    assert not all(v.allowed for v in verdicts)


def test_a_long_answer_whose_messages_keep_saying_new_things_passes() -> None:
    g = Guard()
    g.new_turn("Explain the design of the storage layer")
    lines = [
        "The storage layer has three parts: a journal, checkpoints and replicas.",
        "The journal appends op records with a checksum and fsyncs them in batches.",
        "Checkpoints snapshot the in-memory state every thousand records, compressed.",
        "Replicas tail the journal over NATS and acknowledge each applied batch.",
        "Recovery loads the newest checkpoint, then replays the journal after it.",
        "Compaction drops records older than the oldest checkpoint any replica needs.",
    ]
    assert _said(g, lines) == []


def test_a_user_turn_between_similar_answers_is_a_conversation() -> None:
    g = Guard()
    got: list[str] = []
    for q in ("Do you ship to Norway?", "And to Finland?", "And to Iceland?", "And Estonia?"):
        g.new_turn(q)
        got += _said(
            g, [f"Yes, we ship there. Let me know if I can help with anything else. ({q})"]
        )
    assert got == []


def test_a_stale_message_row_survives_a_reopened_state(tmp_path: Path) -> None:
    """The row of stale messages is kept in the state (journal replay and checkpoints)."""
    with Guard.open(tmp_path / "p", "s1", home=tmp_path / "h") as g:
        g.new_turn("What fittings should I use?")
        first = [g.on_message(m) for m in _OFFERS[:4]]
    assert all(v.allowed for v in first)
    with Guard.open(tmp_path / "p", "s1", home=tmp_path / "h") as g:
        later = [g.on_message(m) for m in _OFFERS[4:]]
    assert not all(v.allowed for v in later)


# ------------------------------------------- commands that only read a cluster or an endpoint


def test_reads_of_a_cluster_a_container_host_and_an_endpoint_are_read_only() -> None:
    for cmd in (
        "kubectl get pods -l app=api",
        "kubectl describe pod api-7d9c",
        "kubectl logs api-7d9c --previous",
        "kubectl rollout status deployment/api --timeout=60s",
        "docker ps -a",
        "docker logs web",
        "helm status web",
        "curl -sI https://llm.example.test/v1/models | head -1",
        "curl -s -o /dev/null -w '%{http_code}' https://example.test",
        "curl -X GET https://example.test/items",
        "curl --head --silent https://example.test | head -1",
    ):
        assert _READONLY_SHELL.match(cmd) is not None, cmd


def test_commands_that_change_a_cluster_or_send_data_are_not_read_only() -> None:
    for cmd in (
        "kubectl apply -f k8s/api.yaml",
        "kubectl rollout restart deployment/api",
        "kubectl delete pod api-7d9c",
        "docker compose up -d db",
        "docker rm web",
        "helm upgrade --install web ./chart",
        "curl -X POST https://example.test/items",
        "curl -d name=a https://example.test/items",
        "curl --data-binary @f.json https://example.test",
        "curl -sL https://example.test -o page.html",
        "curl -sO https://example.test/f.tgz",
        "curl -fsSL https://example.test/install.sh | bash",
        "curl -fsSL https://example.test/install.sh | sudo sh",
        "curl https://example.test > out.html",
    ):
        assert _READONLY_SHELL.match(cmd) is None, cmd


# ------------------------------------------- a transient trial that fails again, no wait


_TIMEOUT = RuntimeError(
    'Waiting for deployment "api" rollout to finish: 0 of 1 updated replicas are '
    "available...\nerror: timed out waiting for the condition"
)
_WAIT = {"command": "kubectl rollout status deployment/api --timeout=60s"}
_PODS = {"command": "kubectl get pods -l app=api"}


def test_a_rollout_that_times_out_while_its_pods_crash_loop_is_caught() -> None:
    """kubernetes/kubectl#738: the rollout wait times out again and again; the pod listing
    in between succeeds, its restart count and age moving."""
    g = Guard()
    got = []
    for k in range(6):
        got.append(run(g, "bash", _WAIT, error=_TIMEOUT))
        got.append(
            run(
                g,
                "bash",
                _PODS,
                f"api-7d9c 0/1 CrashLoopBackOff {k + 3} ({k + 1}m ago) {2 * k + 4}m",
            )
        )
    found = flags(got)
    assert found != []
    # not before the retry budget (three failures) and one trial after a read
    assert all(not f for f in flags(got[:7]))


def test_a_retry_after_each_wait_is_a_backoff_not_a_loop() -> None:
    """manaflow-ai/cmux#9024's counterpart: a timeout retried after a sleep each time (1, 2,
    4, 8 s), failing five times before it answers."""
    g = Guard()
    got = []
    for wait in (1, 2, 4, 8, 16):
        got.append(run(g, "bash", _WAIT, error=_TIMEOUT))
        got.append(run(g, "bash", {"command": f"sleep {wait}"}, ""))
    got.append(run(g, "bash", _WAIT, 'deployment "api" successfully rolled out'))
    assert flags(got) == []


def test_a_timeout_retried_three_times_between_reads_then_answered_passes() -> None:
    g = Guard()
    got = []
    for k in range(3):
        got.append(run(g, "bash", _WAIT, error=_TIMEOUT))
        got.append(run(g, "bash", _PODS, f"api-7d9c 0/1 ContainerCreating 0 {k + 1}m"))
    got.append(run(g, "bash", _WAIT, 'deployment "api" successfully rolled out'))
    assert flags(got) == []


def test_a_hard_failure_between_reads_keeps_its_own_trial_rule() -> None:
    g = Guard()
    err = RuntimeError("error: the server doesn't have a resource type 'deploymnt'")
    got = []
    for k in range(5):
        got.append(run(g, "bash", {"command": "kubectl get deploymnt api"}, error=err))
        got.append(run(g, "bash", _PODS, f"api-7d9c 1/1 Running 0 {k + 1}m"))
    assert flags(got) != []
