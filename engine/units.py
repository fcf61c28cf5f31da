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

#: Bytes per "GB" of HBM as GPU datasheets state it [B/GB]: HBM sizes are binary (CUDA's deviceQuery reports
#: 85,045,477,376 bytes for an "H100 80GB HBM3", 80 GiB less 1 %; HIP 196,592 MiB for an "MI300X 192 GB":
#: github.com/thamada/nvidia-smi ``nvsim/H100SXMx8_deviceQuery.py`` at 03fbe6e6, ``nvsim/MI300X_x4_deviceQuery.py``
#: at a296cf1d). GDDR cards with ECC on expose about their nominal size in decimal bytes (an "L40S 48 GB" GDDR6:
#: 47,803,596,800 bytes, ``nvsim/L40S_deviceQuery.py`` at c768aedc): 1e9 bytes per GB, as for an unstated type.
HBM_BYTES_PER_GB = float(2**30)
DECIMAL_BYTES_PER_GB = 1e9
