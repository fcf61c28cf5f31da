"""Currency conversion at the page boundary.

The catalog keeps each price in the provider's own currency (EUR or USD). Pages convert once, here,
with an exchange rate the user sees and can change in the sidebar. The engine itself never converts.

Sign convention: amounts are positive; the rate is quoted as the ECB quotes it, US dollars per euro.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

#: Default USD per EUR [USD/EUR]: ECB euro foreign exchange reference rate of 2025-02-28 (1 EUR = 1.0411 USD).
DEFAULT_USD_PER_EUR = 1.0411
#: Where the default rate comes from. It is old on purpose of being sourced: the sidebar shows its date
#: and asks the user to enter today's rate (ECB publishes it daily at about 16:00 CET).
DEFAULT_FX_SOURCE = "ECB euro foreign exchange reference rate, as reproduced at https://eurodripusa.net/?p=3028"
DEFAULT_FX_AS_OF = "2025-02-28"

CURRENCIES = ("EUR", "USD")


def to_eur(amount: npt.ArrayLike, currency: npt.ArrayLike, usd_per_eur: npt.ArrayLike) -> np.ndarray:
    """Convert amounts in EUR or USD to EUR.

    Parameters
    ----------
    amount : array_like
        Amount in the currency given by ``currency`` [EUR or USD].
    currency : array_like of str
        ``"EUR"`` or ``"USD"``, broadcast against ``amount``.
    usd_per_eur : array_like
        Exchange rate [USD/EUR], > 0.

    Returns
    -------
    numpy.ndarray
        Amount in EUR, NaN where ``amount`` is NaN (a missing price stays missing).

    Examples
    --------
    >>> float(to_eur(11.6, "USD", 1.16))
    10.0
    >>> float(to_eur(10.0, "EUR", 1.16))
    10.0
    """
    amount_arr = np.asarray(amount, dtype=float)
    currency_arr = np.asarray(currency, dtype=object)
    rate = np.asarray(usd_per_eur, dtype=float)
    if np.any(rate <= 0):
        raise ValueError("usd_per_eur must be > 0")
    unknown = ~np.isin(currency_arr, CURRENCIES)
    if np.any(unknown):
        raise ValueError(f"unknown currency: {sorted(set(np.atleast_1d(currency_arr[unknown]).tolist()))}")
    return np.where(currency_arr == "USD", amount_arr / rate, amount_arr)


def from_eur(amount_eur: npt.ArrayLike, currency: str, usd_per_eur: npt.ArrayLike) -> np.ndarray:
    """Convert EUR amounts to the display currency ``currency`` (``"EUR"`` or ``"USD"``).

    Examples
    --------
    >>> round(float(from_eur(10.0, "USD", 1.16)), 6)
    11.6
    """
    if currency not in CURRENCIES:
        raise ValueError(f"unknown currency: {currency}")
    amount = np.asarray(amount_eur, dtype=float)
    rate = np.asarray(usd_per_eur, dtype=float)
    if np.any(rate <= 0):
        raise ValueError("usd_per_eur must be > 0")
    return amount * rate if currency == "USD" else amount
