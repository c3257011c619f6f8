"""Model providers: one request in, one streamed assistant turn out.

- ``anthropic``: The Anthropic provider: one streamed Messages API request per assistant turn.
- ``base``: The contract every model provider keeps.
- ``claude_code``: The Claude Code provider: the ``claude`` command line, run headless in a staging copy.
- ``factory``: Choosing the provider for a run, including the no-key demo replay.
- ``openai``: The OpenAI-compatible provider: one streamed Chat Completions request per assistant turn.
- ``scripted``: Replays recorded model turns: the bundled demo, past runs, and tests.
"""
