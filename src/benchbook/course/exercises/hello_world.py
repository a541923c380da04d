"""Lesson 02's exercises."""

from benchbook.course.exercise import Exercise

NOTEBOOK = "02_hello_world_locust"

EXERCISES: list[Exercise] = []
