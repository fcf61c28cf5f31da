"""Units of time every engine shares, defined once (issue #32): the year, the month and their hours.

A year is 365 days of 24 hours (a non-leap year: 8,760 h), the calendar convention of hourly cloud pricing (AWS,
Google Cloud and Azure quote a month as 730 h = 8,760 / 12). TCO totals, scoring's allowed downtime per year and
placement's hourly demand profiles all count hours with these.

Examples
--------
>>> HOURS_PER_YEAR == 365 * 24, HOURS_PER_MONTH
(True, 730.0)
"""

from __future__ import annotations

#: Hours in a (non-leap) year [h/yr]: 365 d x 24 h.
HOURS_PER_YEAR = 8760.0
#: Months per year [month/yr].
MONTHS_PER_YEAR = 12
#: Hours in an average month [h/month] = 8,760 / 12 = 730.
HOURS_PER_MONTH = HOURS_PER_YEAR / MONTHS_PER_YEAR
