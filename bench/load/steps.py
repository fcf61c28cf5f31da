"""`make load`: what every browser session shares: waiting for a script run to finish, a screenshot of a failed
step, and counting errors (the page's console and failed steps)."""

from __future__ import annotations

from bench.load.config import Report


def record_error(report: Report, who_where: str, exc: BaseException) -> None:
    """A failed step: counted with the first line of its message (printed whole with --verbose)."""
    first = (str(exc).strip().splitlines() or [""])[0][:160]
    report.errors.append(f"{who_where}: {type(exc).__name__}: {first}")
    if report.config.verbose:
        print(f"{who_where}: {exc}", flush=True)


def on_console(report: Report, msg) -> None:
    """A browser console message: an error is counted, and the first five distinct ones are kept as samples."""
    if msg.type != "error":
        return
    report.console_errors += 1
    text = msg.text[:200]
    if text not in report.console_samples and len(report.console_samples) < 5:
        report.console_samples.append(text)


async def snapshot(page, report: Report, name: str) -> None:
    """A screenshot of ``page`` as ``name``.png in ``--artifacts`` (nothing without it; a failure is ignored)."""
    if report.config.artifacts is None:
        return
    try:
        report.config.artifacts.mkdir(parents=True, exist_ok=True)
        await page.screenshot(path=str(report.config.artifacts / f"{name}.png"), timeout=20_000)
    except Exception:  # a screenshot is a debugging aid only
        pass


async def wait_idle(page, timeout_ms: float) -> None:
    """Wait until the session's script run has finished (Streamlit's "Running..." icon is gone)."""
    from playwright.async_api import expect

    await expect(page.get_by_test_id("stStatusWidgetRunningIcon")).to_have_count(0, timeout=timeout_ms)
