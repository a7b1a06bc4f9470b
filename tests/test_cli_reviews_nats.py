"""``humangr reviews``, ``show``, ``resolve`` and ``submit --wait --final`` against an engine on a
real nats-server."""

from __future__ import annotations

import time

import anyio
import pytest
from cli_reviews_helpers import (
    CLEAN_ACTION,
    CLEAN_DIFF,
    REASON,
    SIGNER,
    engine_on_nats,
    humangr,
    pricing_action,
)

from humangr.actors.roles import Engine
from humangr.contracts import (
    HumanLayerReport,
    Outcome,
    ReviewDetail,
    ReviewListing,
    ReviewQuery,
    Subjects,
    decode,
    encode,
)
from humangr.engine.bus.nats import NatsBus
from humangr.engine.state import MemoryStateStore
from humangr.engine.state.reviews import ReviewState

pytestmark = [pytest.mark.anyio, pytest.mark.nats]

Cap = pytest.CaptureFixture[str]


@pytest.fixture(autouse=True)
def trust_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reviewer commands on NATS need the Supervisor's public key: the test engines'."""
    monkeypatch.setenv("HUMANGR_PUBLIC_KEY", SIGNER.public_key)


async def needs_review(engine: Engine) -> HumanLayerReport:
    report = await engine.submit(pricing_action(), timeout=30)
    assert report.outcome is Outcome.NEEDS_REVIEW, report.blocking_reasons
    return report


async def test_reviews_lists_what_waits_for_a_human(nats_url: str, capsys: Cap) -> None:
    async with engine_on_nats(nats_url) as (engine, prefix):
        where = ("--nats", nats_url, "--prefix", prefix)
        empty = await humangr(capsys, "reviews", *where)
        assert empty.code == 0
        assert empty.out.startswith("no reviews pending via nats://")
        first = await needs_review(engine)
        # another agent's action: the same action would get the standing needs_review of first
        approved = await engine.submit(
            pricing_action("agent-2"), action_id=CLEAN_ACTION, timeout=30
        )
        assert approved.outcome is Outcome.APPROVED
        as_json = await humangr(capsys, "reviews", *where, "--format", "json")
        text = await humangr(capsys, "reviews", *where)
    assert as_json.code == 0
    listing = decode(as_json.out.strip().encode(), ReviewListing)
    [review] = listing.reviews
    assert (review.action_id, review.agent_id, review.findings) == (first.action_id, "agent-1", 4)
    assert review.action_hash == first.action_hash
    assert review.blocking_reasons == first.blocking_reasons
    assert any(reason.startswith("HL2") for reason in review.blocking_reasons)
    assert text.code == 0
    lines = text.out.splitlines()
    assert lines[0].startswith("1 review pending via nats://")
    assert lines[1].startswith(f"{first.action_id}  agent agent-1  code_diff  4 findings  age ")
    assert lines[1].endswith(" 23h59m left")
    assert lines[2] == "  refactor pricing"
    assert [line for line in lines if line.startswith("  ! HL2")]


async def test_show_prints_the_diff_with_each_finding_at_its_line(
    nats_url: str, capsys: Cap
) -> None:
    async with engine_on_nats(nats_url) as (engine, prefix):
        first = await needs_review(engine)
        where = ("--nats", nats_url, "--prefix", prefix)
        text = await humangr(capsys, "show", first.action_id, *where)
        as_json = await humangr(capsys, "show", first.report_id, *where, "--format", "json")
    assert text.code == 0, text.err
    lines = text.out.splitlines()
    assert lines[0].startswith(f"{first.action_id}: NEEDS_REVIEW: waiting for a human (deadline ")
    assert "  | second line of the description" in lines
    at = lines.index("=== app/pricing.py (modified)")
    body = lines[at:]
    line_13 = next(
        i
        for i, line in enumerate(body)
        if line.endswith('+    return f"{total // 100}.{total % 100:02d}"')
    )
    assert body[line_13].split()[0] == "13"
    assert body[line_13 + 1].strip() == ("^ [high] HL2 Negative totals round the wrong way (llm)")
    assert body[line_13 + 2].strip() == "suggestion: Use divmod on the absolute value"
    loose = body.index("  findings on app/pricing.py at no line of the diff:")
    assert loose > line_13
    assert "[medium] HL2 Cents are not documented in the module (llm)" in body[loose + 1]
    assert body[loose + 2].endswith("Caller at line 200 still uses calc (llm) (line 200)")
    end = body.index("=== findings about no file of the diff")
    assert end > loose
    assert body[end + 1].strip() == "[low] HL2 No changelog entry (llm)"
    assert as_json.code == 0, as_json.err
    detail = decode(as_json.out.strip().encode(), ReviewDetail)
    assert detail.pending
    assert detail.final is None
    assert detail.deadline is not None
    assert detail.report == first
    assert detail.action is not None
    assert detail.action.code_diff == CLEAN_DIFF.read_text()


async def test_resolve_approves_and_the_submitter_gets_the_final_decision(
    nats_url: str, capsys: Cap
) -> None:
    async with engine_on_nats(nats_url) as (engine, prefix):
        where = ("--nats", nats_url, "--prefix", prefix)
        final: list[HumanLayerReport] = []
        async with anyio.create_task_group() as tg:

            async def submit() -> None:
                final.append(await engine.submit(pricing_action(), final=True, timeout=30))

            tg.start_soon(submit)
            action_id = await _first_pending(engine)
            run = await humangr(
                capsys, "resolve", action_id, "--approve", "--reason", REASON,
                "--reviewer", "alice", *where, "--format", "json",
            )  # fmt: skip
        listing = await humangr(capsys, "reviews", *where)
        again = await humangr(capsys, "resolve", action_id, "--reject", "--reason", REASON, *where)
        shown = await humangr(capsys, "show", action_id, *where)
    assert run.code == 0, run.err
    decision = decode(run.out.strip().encode(), HumanLayerReport)
    assert decision == final[0]
    assert (decision.outcome, decision.resolved_by) == (Outcome.APPROVED, "alice")
    assert decision.resolution_reason == REASON
    assert listing.out.startswith("no reviews pending")
    again.error_line(f"the review of {action_id} is already resolved: approved by alice")
    assert shown.out.startswith(f"{action_id}: APPROVED by alice (was needs_review): {REASON}")


async def test_resolve_reject_exits_2_and_prints_the_decision(nats_url: str, capsys: Cap) -> None:
    async with engine_on_nats(nats_url) as (engine, prefix):
        first = await needs_review(engine)
        run = await humangr(
            capsys, "resolve", first.report_id, "--reject", "--reason", REASON,
            "--reviewer", "bob", "--nats", nats_url, "--prefix", prefix,
        )  # fmt: skip
        stored = await engine.report(first.action_id)
    assert run.code == 2, run.err
    assert run.out.startswith(f"{first.action_id}: REJECTED (veto medium)")
    assert f"  resolved by bob: {REASON}" in run.out.splitlines()
    assert (stored.outcome, stored.resolved_by) == (Outcome.REJECTED, "bob")


async def test_a_resolution_the_supervisor_refuses_exits_3_with_its_reason(
    nats_url: str, capsys: Cap
) -> None:
    store = MemoryStateStore()
    async with engine_on_nats(nats_url, state=store) as (engine, prefix):
        first = await needs_review(engine)
        other = ReviewState(
            store, owner="another-supervisor", retention_s=3600, review_deadline_s=3600
        )
        await other.open()
        pending = await other.pending_review(first.action_id)
        assert pending is not None
        assert await other.claim_review(pending)
        started = time.monotonic()
        run = await humangr(
            capsys, "resolve", first.action_id, "--approve", "--reason", REASON,
            "--nats", nats_url, "--prefix", prefix, "--timeout", "4",
        )  # fmt: skip
        elapsed = time.monotonic() - started
        listing = await humangr(capsys, "reviews", "--nats", nats_url, "--prefix", prefix)
    # the claim (30 s) outlasts the wait: sent again while held, then told it is still pending
    run.error_line(
        f"the resolution of {first.action_id} was not acknowledged",
        "the review is still pending; try again",
    )
    assert elapsed < 8, "told within the timeout, not left waiting"
    assert first.action_id in listing.out, "a refused resolution resolves nothing"


async def test_two_reviewers_at_once_one_wins_the_other_is_told(nats_url: str, capsys: Cap) -> None:
    async with engine_on_nats(nats_url) as (engine, prefix):
        first = await needs_review(engine)
        where = ("--nats", nats_url, "--prefix", prefix)
        runs = {}
        async with anyio.create_task_group() as tg:
            for name in ("alice", "bob"):

                async def resolve(name: str = name) -> None:
                    runs[name] = await anyio.to_thread.run_sync(
                        _main,
                        [
                            "resolve",
                            first.action_id,
                            "--approve",
                            "--reason",
                            REASON,
                            "--reviewer",
                            name,
                            *where,
                        ],
                    )

                tg.start_soon(resolve)
        stored = await engine.report(first.action_id)
    assert sorted(runs.values()) == [0, 3], runs
    winner = next(name for name, code in runs.items() if code == 0)
    assert stored.resolved_by == winner
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert first.action_id in err[0], err
    assert "refused" in err[0] or "already resolved" in err[0] or "resolved first" in err[0]


def _main(args: list[str]) -> int:
    from humangr.cli.main import main

    return main(args)


async def test_unknown_and_undecided_ids_exit_3(nats_url: str, capsys: Cap) -> None:
    async with engine_on_nats(nats_url) as (engine, prefix):
        where = ("--nats", nats_url, "--prefix", prefix)
        approved = await engine.submit(pricing_action(), action_id=CLEAN_ACTION, timeout=30)
        assert approved.outcome is Outcome.APPROVED
        unknown_show = await humangr(capsys, "show", "act-nope", *where)
        unknown_resolve = await humangr(
            capsys, "resolve", "act-nope", "--approve", "--reason", REASON, *where
        )
        undecided = await humangr(
            capsys, "resolve", CLEAN_ACTION, "--reject", "--reason", REASON, *where
        )
        shown = await humangr(capsys, "show", CLEAN_ACTION, *where)
    unknown_show.error_line("humangr show: no review of action or report 'act-nope'")
    unknown_resolve.error_line("humangr resolve: no review of action or report 'act-nope'")
    undecided.error_line(f"action {CLEAN_ACTION} was approved: no review of it is pending")
    assert shown.out.startswith(f"{CLEAN_ACTION}: APPROVED (no review pending)")


@pytest.mark.parametrize(
    "args",
    [
        ["reviews"],
        ["show", "act-1"],
        ["resolve", "act-1", "--approve", "--reason", REASON],
    ],
    ids=["reviews", "show", "resolve"],
)
async def test_no_supervisor_answering_exits_3_at_once(
    nats_url: str, capsys: Cap, args: list[str]
) -> None:
    started = time.monotonic()
    run = await humangr(capsys, *args, "--nats", nats_url, "--prefix", "nobody-serves-this")
    run.error_line("no responders on 'nobody-serves-this.reviews.query'")
    assert time.monotonic() - started < 3


@pytest.mark.parametrize(
    ("answer", "fragment"),
    [
        (b"not json", "invalid ReviewListing"),
        (b'{"reviews": [], "extra": 1}', "unknown field $.extra"),
        (b'{"error": "the store is down"}', "the store is down"),
        (b"{}", "the Supervisor sent no review for 'act-1'"),
    ],
    ids=["garbage", "unknown-field", "error", "empty"],
)
async def test_a_bad_answer_is_an_error_never_a_resolution(
    nats_url: str, capsys: Cap, answer: bytes, fragment: str
) -> None:
    prefix = "hostile"
    subjects = Subjects(prefix)
    async with (
        await NatsBus.connect(nats_url) as bus,
        bus.subscribe(subjects.review_query) as queries,
        bus.subscribe(subjects.review_resolves) as resolutions,
        anyio.create_task_group() as tg,
    ):

        async def answer_all() -> None:
            async for msg in queries:
                assert msg.reply is not None
                await bus.publish(msg.reply, answer)

        tg.start_soon(answer_all)
        await bus.flush()
        run = await humangr(
            capsys, "resolve", "act-1", "--approve", "--reason", REASON,
            "--nats", nats_url, "--prefix", prefix,
        )  # fmt: skip
        with anyio.move_on_after(0.3):
            async for _ in resolutions:
                pytest.fail("a resolution was published after a bad answer")
        tg.cancel_scope.cancel()
    run.error_line(fragment)


async def test_an_answer_about_another_action_is_not_trusted(nats_url: str, capsys: Cap) -> None:
    async with engine_on_nats(nats_url) as (engine, prefix):
        first = await needs_review(engine)
        subjects = Subjects(prefix)
        reply = await engine.bus.request(
            subjects.review_query, encode(ReviewQuery(action_id=first.action_id))
        )
    detail = decode(reply.data, ReviewListing)
    liar_prefix = "liar"
    async with (
        await NatsBus.connect(nats_url) as bus,
        bus.subscribe(Subjects(liar_prefix).review_query) as queries,
        anyio.create_task_group() as tg,
    ):

        async def lie() -> None:
            async for msg in queries:
                assert msg.reply is not None
                await bus.publish(msg.reply, encode(detail))

        tg.start_soon(lie)
        await bus.flush()
        run = await humangr(
            capsys, "resolve", "act-other", "--approve", "--reason", REASON,
            "--nats", nats_url, "--prefix", liar_prefix,
        )  # fmt: skip
        tg.cancel_scope.cancel()
    run.error_line(f"answered with the review of {first.action_id}, not 'act-other'; not trusted")


async def test_submit_wait_final_waits_past_needs_review(nats_url: str, capsys: Cap) -> None:
    async with engine_on_nats(nats_url) as (engine, prefix):
        where = ("--nats", nats_url, "--prefix", prefix)
        submit = ("submit", str(CLEAN_DIFF), *where, "--wait", "--timeout", "30")
        first = await humangr(capsys, *submit)
        codes: list[int] = []
        async with anyio.create_task_group() as tg:

            async def wait_final() -> None:
                args = [*submit, "--final", "--format", "json"]
                codes.append(await anyio.to_thread.run_sync(_main, args))

            tg.start_soon(wait_final)
            ids: set[str] = set()
            with anyio.fail_after(20):
                while len(ids) < 2:
                    ids = {r.action_id for r in (await _listing(engine)).reviews}
                    await anyio.sleep(0.05)
            [waiting] = ids - {_action_id(first.out)}
            resolution = ["resolve", waiting, "--reject", "--reason", REASON]
            resolution += ["--reviewer", "carol", *where, "--format", "json"]
            assert await anyio.to_thread.run_sync(_main, resolution) == 2
        # read once both commands are done: either may print first
        out = capsys.readouterr().out
    assert first.code == 1, first.err
    assert codes == [2]
    # the submitter's decision and the reviewer's, in either order: the same final decision
    printed = [decode(line.encode(), HumanLayerReport) for line in out.strip().splitlines()]
    assert len(printed) == 2, out
    assert printed[0] == printed[1], out
    final = printed[0]
    assert (final.action_id, final.outcome, final.resolved_by) == (
        waiting,
        Outcome.REJECTED,
        "carol",
    )


def _action_id(text: str) -> str:
    words = text.split()
    return words[words.index("action") + 1]


async def _listing(engine: Engine) -> ReviewListing:
    reply = await engine.bus.request(engine.subjects.review_query, encode(ReviewQuery()))
    return decode(reply.data, ReviewListing)


async def _first_pending(engine: Engine) -> str:
    with anyio.fail_after(20):
        while True:
            listing = await _listing(engine)
            if listing.reviews:
                return listing.reviews[0].action_id
            await anyio.sleep(0.05)


async def test_submit_final_without_a_resolution_names_the_way_out(
    nats_url: str, capsys: Cap
) -> None:
    async with engine_on_nats(nats_url) as (_, prefix):
        args = ["submit", str(CLEAN_DIFF), "--nats", nats_url, "--prefix", prefix, "--wait"]
        run = await humangr(capsys, *args, "--final", "--timeout", "3")
    line = run.error_line("no final decision on act-", "within 3s", "humangr resolve act-")
    assert "01-clean-refactor.diff" in line


async def test_submit_final_needs_wait(capsys: Cap) -> None:
    run = await humangr(capsys, "submit", str(CLEAN_DIFF), "--nats", "nats://127.0.0.1:1",
                        "--final")  # fmt: skip
    run.error_line("humangr submit: error: --final waits past needs_review: give it with --wait")
