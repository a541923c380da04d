"""Lesson 00's exercises."""

from benchbook.course.exercise import Exercise

NOTEBOOK = "00_load_generators"

EXERCISES: list[Exercise] = []
