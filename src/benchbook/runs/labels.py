"""Target labels with a meaning of their own: the A/A control's copy.

An experiment measures its control twice, the second time as "<control> (A/A copy)"; the
ratio of the two shows what the setup can resolve, and the copy is never a result.
"""

AA_COPY = "(A/A copy)"  # the control's second name: "go-hello (A/A copy)"


def aa_copy_of(target: str) -> str:
    return f"{target} {AA_COPY}"


def is_aa_copy(label: str) -> bool:
    return label.endswith(" " + AA_COPY)


def original_of(copy: str) -> str:
    """The control an A/A copy's label copies."""
    return copy.removesuffix(" " + AA_COPY)
