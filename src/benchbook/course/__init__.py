"""The course: the lessons in order (the course map), predict-then-measure exercises, and
the editions a class works from (a student edition, a teacher key).

The top layer: an exercise measures (measure) and reads the models the notebooks check
(analyse); render and below never import it.
"""

from benchbook.course.check import check
from benchbook.course.exercise import Exercise, Outcome, Settings

__all__ = ["Exercise", "Outcome", "Settings", "check"]
