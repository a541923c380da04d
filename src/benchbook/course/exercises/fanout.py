"""Lesson 03's exercises."""

from benchbook.course.exercise import Exercise

NOTEBOOK = "03_goroutine_fanout"

EXERCISES: list[Exercise] = []
