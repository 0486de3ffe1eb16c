"""The desk's rules, without widgets: the session (profiles, modes, keys, clients, ledgers),
the controllers of links, transactions and cards, what views show, and the events that tell
them something changed (``events.Hub``). Imports no Qt: a window, a test or a headless
process (the notification receiver) runs the same rules. ``build.build_desk`` puts a desk
together."""
