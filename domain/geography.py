"""Country groups, as ISO 3166-1 alpha-2 codes."""

from __future__ import annotations

__all__ = ["EU_EEA_COUNTRY_CODES"]

#: EU member states (27) plus the EEA countries Iceland, Liechtenstein and Norway: where a data centre gives "EU
#: data residency" and where a legal seat counts as "in the EU/EEA". Sources:
#: https://european-union.europa.eu/principles-countries-history/eu-countries_en and the EEA Agreement
#: (https://www.efta.int/eea), as of 2026.
EU_EEA_COUNTRY_CODES: frozenset[str] = frozenset(
    "AT BE BG HR CY CZ DK EE FI FR DE GR HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE IS LI NO".split()
)
