"""benchbook's Locust users: one GET path, a uniform wait between requests.

Select the class on the command line (``locust -f locustfile.py HttpUserGet``):
``HttpUserGet`` uses requests (as most articles do), ``FastHttpUserGet`` geventhttpclient,
several times faster per CPU. Options are Locust custom arguments, so workers of a
distributed run receive them from the master.
"""

from locust import FastHttpUser, HttpUser, between, events, task


@events.init_command_line_parser.add_listener
def _options(parser) -> None:
    parser.add_argument("--bb-path", default="/", help="path every user requests")
    parser.add_argument("--bb-wait-min", type=float, default=0.0, help="seconds")
    parser.add_argument("--bb-wait-max", type=float, default=0.0, help="seconds")


def _wait(user) -> float:
    options = user.environment.parsed_options
    return between(options.bb_wait_min, options.bb_wait_max)(user)


class HttpUserGet(HttpUser):
    wait_time = _wait

    @task
    def get(self) -> None:
        self.client.get(self.environment.parsed_options.bb_path)


class FastHttpUserGet(FastHttpUser):
    wait_time = _wait

    @task
    def get(self) -> None:
        self.client.get(self.environment.parsed_options.bb_path)
