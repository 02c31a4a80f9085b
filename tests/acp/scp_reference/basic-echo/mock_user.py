"""Symposium's `scenarios/basic-echo/mock_user.ts`, in its Python form, as written there."""

from workbench.acp.scp import TestContext


async def mock_user(ctx: TestContext) -> None:
    ctx.log("info", "Starting basic echo test")
    session = await ctx.start_session()
    await session.say("Hello, world")
    response = await session.read_response_string()
    if response != "Hello, user":
        raise AssertionError(f"Expected 'Hello, user', got '{response}'")
    ctx.log("info", "Basic echo test passed")
    await session.finish()
