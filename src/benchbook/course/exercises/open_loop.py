"""Lesson 06's exercises."""

from benchbook.course.exercise import Exercise

NOTEBOOK = "06_open_loop"

EXERCISES: list[Exercise] = []
