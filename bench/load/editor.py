"""`make load`: the editor session, saving price changes through the Editor page's data grid (rows found by
their price id, each cell checked to hold the old value before typing)."""

from __future__ import annotations

import asyncio
import re
import time

from bench.load.config import PlannedEdit, Report
from bench.load.plan import column_offset
from bench.load.steps import snapshot, wait_idle


async def _open_cell(page, overlay, timeout_ms: float) -> str | None:
    """Open the selected grid cell's editor (Enter), read its value and close it again (Escape); None if the
    editor did not open."""
    from playwright.async_api import expect

    await page.keyboard.press("Enter")
    try:
        await expect(overlay).to_be_visible(timeout=10_000)
    except AssertionError:
        return None
    value = await overlay.input_value()
    await page.keyboard.press("Escape")
    await expect(overlay).to_have_count(0, timeout=10_000)
    return value


ROW_PX = 35  # height of a header or data row of Streamlit's data grid


async def _scroll_grid_to_row(grid, row: int) -> None:
    """Scroll the grid's own scroller so that ``row`` is the first row shown (as far as it scrolls)."""
    await grid.evaluate("(el, top) => { for (const s of el.querySelectorAll('.dvn-scroller')) { s.scrollTop = top; "
                        "s.scrollLeft = 0; } }", row * ROW_PX)


async def _select_row(page, grid, overlay, edit: PlannedEdit, start_row: int, timeout_ms: float,
                      seen: list[str], max_walk: int) -> bool:
    """Select the id cell of the row whose id is ``edit.price_id``: scroll the grid so that ``start_row`` (the
    predicted row) is on top, click the first row shown, read its id and walk the id-sorted grid with the
    arrow keys to the row. False if the grid did not take a click or key (retry)."""
    await wait_idle(page, timeout_ms)
    await grid.scroll_into_view_if_needed()
    await _scroll_grid_to_row(grid, start_row)
    await page.wait_for_timeout(300)  # the canvas redraws after the scroll
    box = await grid.bounding_box()
    await page.mouse.click(box["x"] + 40, box["y"] + ROW_PX + ROW_PX // 2)  # first row shown, id column
    current = await _open_cell(page, overlay, timeout_ms)
    walked = 0
    while current is not None and current != edit.price_id and walked < max_walk:
        seen.append(current)
        await page.keyboard.press("ArrowDown" if current < edit.price_id else "ArrowUp")
        previous, current = current, await _open_cell(page, overlay, timeout_ms)
        walked += 1
        if current is not None and current != edit.price_id \
                and (previous < edit.price_id) != (current < edit.price_id):
            raise RuntimeError(f"the Prices grid has no row {edit.price_id} between {min(previous, current)} "
                               f"and {max(previous, current)} (is it still sorted by price id?)")
    return current == edit.price_id


def _same(shown: str, expected: object) -> bool:
    if isinstance(expected, float):
        try:
            return abs(float(shown) - expected) <= 1e-9
        except ValueError:
            return False
    return shown == str(expected)


async def _type_into_grid(page, edit: PlannedEdit, report: Report, timeout_ms: float, max_walk: int = 40) -> None:
    """Type the edit's cells (amount, source URL, retrieved at) into the Prices grid row whose id is
    ``edit.price_id``.

    The row is located by its id, not by a screen position alone (:func:`_select_row`); before typing, each cell is
    checked to hold the row's old value (or, after a retry, already the new one). A click or key the grid did
    not take (it re-renders when a script run ends, after every committed cell) is retried, at most 4 times per
    cell, and counted."""
    from playwright.async_api import expect

    grid = page.locator('.st-key-ed_prices [data-testid="stDataFrame"]').first
    overlay = page.locator("input.gdg-input, textarea.gdg-input").first
    seen: list[str] = []
    for name, old, new in edit.cells():
        for attempt in range(5):
            if attempt:
                report.editor_retries += 1
                await page.keyboard.press("Escape")
                await page.wait_for_timeout(1000)
            if not await _select_row(page, grid, overlay, edit, edit.grid_row, timeout_ms, seen, max_walk):
                continue
            for _ in range(column_offset(name)):
                await page.keyboard.press("ArrowRight")
            await page.keyboard.press("Enter")
            try:
                await expect(overlay).to_be_visible(timeout=10_000)
                shown = await overlay.input_value()
            except AssertionError:
                continue
            if _same(shown, new):  # committed by an earlier attempt
                await page.keyboard.press("Escape")
                break
            if not _same(shown, old):
                await page.keyboard.press("Escape")
                continue
            await overlay.fill(str(new))
            await overlay.press("Enter")
            await expect(overlay).to_have_count(0, timeout=10_000)
            break
        else:
            raise RuntimeError(f"the Prices grid did not let the editor type {name} of row {edit.price_id} "
                               f"(predicted at row {edit.grid_row}) in 5 attempts; ids read on the way: "
                               f"{sorted(set(seen))[:6]}")


async def editor_session(page, url: str, report: Report, timeout_ms: float, gap_s: float,
                         tours_running: asyncio.Event) -> None:
    from playwright.async_api import expect

    for k, edit in enumerate(report.edits_planned, start=1):
        await asyncio.sleep(gap_s)
        try:
            await page.goto(f"{url}/editor", timeout=timeout_ms)
            await expect(page.get_by_text(re.compile(r"^Local mode"))).to_be_visible(timeout=timeout_ms)
            await expect(page.locator('.st-key-ed_prices [data-testid="stDataFrame"]').first).to_be_visible(
                timeout=timeout_ms)
            await _type_into_grid(page, edit, report, timeout_ms)
            await page.wait_for_timeout(1000)  # the grid hands its edit state to the widget asynchronously
            message = page.get_by_label("What changed and why (saved in the history)").first
            await message.fill(f"load test: save {k} of {len(report.edits_planned)}, {edit.price_id} -> {edit.amount}")
            await message.press("Enter")
            await page.wait_for_timeout(1000)
            t0 = time.perf_counter()
            await page.locator(".st-key-ed_save_prices button").click()
            outcome = page.locator('[data-testid="stAlertContainer"]').filter(
                has_text=re.compile(r"Saved change set #|Nothing was saved|Nothing to save|Say what changed|changed by someone"))
            await expect(outcome.first).to_be_visible(timeout=timeout_ms)
            text = (await outcome.first.inner_text()).strip()
            if not re.search(r"Saved change set #\d+: 2 row change\(s\)", text):
                raise RuntimeError(f"save {k}: {text[:200]}")
            report.saves.append(time.perf_counter() - t0)
            report.edits_acknowledged.append(k - 1)
            if tours_running.is_set():
                report.saves_during_tours += 1
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            first = (str(exc).strip().splitlines() or [""])[0][:200]
            report.errors.append(f"editor save {k}: {type(exc).__name__}: {first}")
            await snapshot(page, report, f"editor-save{k}")
