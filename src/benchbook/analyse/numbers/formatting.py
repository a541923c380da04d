"""Numbers as a reader reads them: req/s without decimals, ratios with two significant
digits, intervals with the level they actually reach. One place, so every table, sentence
and summary writes the same number the same way."""

import math
from collections.abc import Iterable

TARGET_LEVEL = 0.95


def _absent(value: float | None) -> bool:
    """No number to write: None or NaN (printed as '–')."""
    return value is None or isinstance(value, float) and math.isnan(value)


def significant(value: float, digits: int = 2) -> str:
    """12345 → '12,000', 1.537 → '1.5', 0.00314 → '0.0031' (never '0.00')."""
    if _absent(value):
        return "–"
    if value == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(value)))
    places = digits - 1 - magnitude  # negative: round to tens, hundreds, …
    rounded = round(value, places)
    return f"{rounded:,.{max(0, places)}f}"


def ratio_digits(value: float) -> int:
    """Two significant digits; three near 1, where two would hide a 7 % effect (1.07);
    every digit of a ratio of 100 or more (106×, not 110×)."""
    if abs(value) >= 100:
        return math.floor(math.log10(abs(value))) + 1
    return 3 if 0.5 <= abs(value) <= 2 else 2


def ratio(value: float) -> str:
    """A ratio and its ×: '14×', '1.07×', '0.0031×' (never '0.00×')."""
    if _absent(value):
        return "–"
    return f"{significant(value, ratio_digits(value))}×"


def _rounded_toward(value: float, direction: int) -> str:
    digits = ratio_digits(value)
    places = digits - 1 - math.floor(math.log10(abs(value)))
    step = 10.0**-places
    # the tiny slack keeps 2.6 from flooring to 2.5 when 2.6 is stored as 2.5999…
    ends = math.floor(value / step + 1e-9) if direction < 0 else math.ceil(value / step - 1e-9)
    return f"{significant(ends * step, digits)}×"


def ratio_at_least(value: float) -> str:
    """A lower bound, rounded down so the printed figure still bounds: 2.65 → '2.6×' (not
    '2.7×', which a printed 2.65 ms beside it would break)."""
    return "–" if _absent(value) or value <= 0 else _rounded_toward(value, -1)


def ratio_at_most(value: float) -> str:
    """An upper bound, rounded up: 3.22 → '3.3×'."""
    return "–" if _absent(value) or value <= 0 else _rounded_toward(value, +1)


def _reads_as_one(value: float, digits: int) -> bool:
    return float(significant(value, digits).replace(",", "")) == 1


def interval(low: float, high: float, unit: str = "×") -> str:
    """'11–21×', '1.94–2.06×', '137–1,299×', '4.4–2,175×': both ends below 100 with the
    digits of the finer one, an end of 100 or more with its whole digits and no decimals
    (lending the other none); more on both if they would read the same, and more on an
    end that would read as 1 without being 1 ('0.807–1.002×': which side of 1 it lies
    on is what a reader asks of it)."""
    if any(v is None or math.isnan(v) for v in (low, high)):
        return "no interval"
    # An end of 100 or more prints its whole digits and sets no precision for the other:
    # '4.4–2,175×', not '4.433–2,175×'.
    digits = max((ratio_digits(v) for v in (low, high) if abs(v) < 100), default=2)

    def end(value: float) -> str:
        shown = ratio_digits(value) if abs(value) >= 100 else digits  # 137, not 137.0
        while unit == "×" and value != 1 and shown < 7 and _reads_as_one(value, shown):
            shown += 1
        return significant(value, shown)

    if end(low) != end(high):
        return f"{end(low)}–{end(high)}{unit}"
    while significant(low, digits) == significant(high, digits) and digits < 7:
        digits += 1
    return f"{significant(low, digits)}–{significant(high, digits)}{unit}"


def share(value: float) -> str:
    """A ratio below 1 as a share: 0.19 → '19 %', 0.521 → '52 %', 0.0032 → '0.32 %'."""
    if _absent(value):
        return "–"
    return f"{significant(100 * value, 2)} %"


def percent(value: float, places: int = 0) -> str:
    """A share with the report's one percent style: 0.46 → '46 %', 0.013 → '1.3 %' with
    ``places=1`` (never '46%' in one sentence and '46 %' in the next)."""
    if _absent(value):
        return "–"
    return f"{100 * value:.{places}f} %"


def share_point(value: float) -> str:
    """A share beside shares of ratios near 1 and far below it: '62 %', and below 10 % with
    one decimal ('6.2 %'), as share_interval's ends have."""
    return percent(value, 1 if value < 0.1 else 0)


def share_interval(low: float, high: float) -> str:
    """'51–53 %': an interval of ratios below 1 as shares, with the digits to tell its
    ends apart."""
    if any(v is None or math.isnan(v) for v in (low, high)):
        return "no interval"
    digits = 2
    while significant(100 * low, digits) == significant(100 * high, digits) and digits < 5:
        digits += 1
    return f"{significant(100 * low, digits)}–{significant(100 * high, digits)} %"


def ci(low: float, high: float, confidence: float, unit: str = "×") -> str:
    """'95 % CI 11–21×', '93.8 % CI …', or 'no CI (too few runs)'."""
    if not confidence or any(v is None or math.isnan(v) for v in (low, high)):
        return "no CI (too few runs)"
    return f"{level(confidence)} {interval(low, high, unit)}"


def level(confidence: float) -> str:
    """'95 % CI' for an interval covering at least 95 %, or the level reached when too
    few runs make 95 % impossible: '93.8 % CI'."""
    if confidence is None or math.isnan(confidence) or confidence <= 0:
        return "no CI"
    if confidence >= TARGET_LEVEL:
        return "95 % CI"
    return f"{100 * confidence:.1f} % CI"


def count(value: float) -> str:
    """Requests, req/s, bytes: whole numbers with thousands separators."""
    if _absent(value):
        return "–"
    return f"{value:,.0f}"


def count_range(values: Iterable[float], unit: str = "") -> str:
    """'19,100–30,500', or one count where every value rounds to it; ``unit`` appended
    (missing values left out)."""
    present = [v for v in values if not _absent(v)]
    low, high = min(present), max(present)
    text = count(low) if round(low) == round(high) else f"{count(low)}–{count(high)}"
    return text + unit


def milliseconds(value: float) -> str:
    """Latency: three significant digits, at least whole milliseconds above 100."""
    if _absent(value):
        return "–"
    return significant(value, 3) if abs(value) < 100 else f"{value:,.0f}"


def p_number(p: float) -> str:
    """A p-value as a table cell: '0.031', or '< 0.001' (never '0.000', which reads as
    impossible)."""
    return "< 0.001" if p < 0.0005 else f"{p:.3f}"


def p_value(p: float) -> str:
    """A p-value in a sentence: 'p = 0.031', 'p < 0.001'."""
    number = p_number(p)
    return f"p {number}" if number.startswith("<") else f"p = {number}"


def times_fewer(value: float) -> str:
    """How a ratio below 1 reads: 0.03 → '33× lower'; above 1: '1.5× higher'."""
    if value < 1:
        return f"{significant(1 / value)}× lower"
    return f"{significant(value)}× higher"
