"""The flows between handlers and storage: recording an answer, running a round or an interview.

Services know nothing of Telegram updates; they take plain values, call storage for rows and
the domain for rules, and hold the transactions that must stay whole.
"""
