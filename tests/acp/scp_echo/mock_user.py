"""The SCP basic-echo user: two turns, checked whole."""

from workbench.acp.scp import TestContext


async def mock_user(ctx: TestContext) -> None:
    session = await ctx.start_session()
    turn = await session.say("Hello, world")
    assert (turn.text, turn.stop_reason) == ("Hello, user", "end_turn")
    await session.send("again")
    assert await session.read_response() == "echo: again"
    ctx.log("info", "basic-echo passed")
