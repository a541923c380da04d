"""Lesson 07's exercises."""

from benchbook.course.exercise import Exercise

NOTEBOOK = "07_network"

EXERCISES: list[Exercise] = []
