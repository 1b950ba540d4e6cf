"""Benchmarks that back the figures in the README: `make bench` (python -m bench) runs the bot
against a bare PTB baseline, storage, bank and reminders; some modules also run alone
(`python -m bench.<name>`)."""
