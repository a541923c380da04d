"""Hosts: where an experiment's servers and load tools run, and the link between them
(placement: the kinds local, netns and ssh; namespaces; toxiproxy; link; remote;
addresses: where benchbook may send a request at all)."""
