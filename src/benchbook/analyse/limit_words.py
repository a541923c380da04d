"""Each limit of runs.limits as the subject of a sentence a reader reads ("the users'
wait set both rates"): the one place its words are kept."""

from benchbook.runs.limits import Limit


def subject(limit: Limit | str) -> str:
    """The limit as a sentence's subject: "the users' wait", "a busy machine"."""
    return {
        Limit.MACHINE: "a busy machine",
        Limit.LOAD_TOOL: "the load tool",
        Limit.OFFERED: "the offered rate",
        Limit.SERVER: "each server's CPU",
        Limit.THINK_TIME: "the users' wait",
        Limit.LINK: "the link",
        Limit.IN_FLIGHT: "the requests in flight",
        Limit.NONE: "nothing measured",
        Limit.UNRECORDED: "something not recorded",
    }[limit]
