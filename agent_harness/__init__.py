"""agent_harness: a database-native agent harness for the workshop.

>>> import agent_harness
>>> h = agent_harness.connect()
>>> h.memory.search("vessel capacity in TEU", k=3, mode="hybrid")
>>> h.tools.call("run_sql", {"sql": "SELECT COUNT(*) AS n FROM supplychain.vessels"})
>>> h.tools.retrieve("where is the ship now", k=5)
>>> h.skills.manifest("port congestion", k=3)
"""

from agent_harness.foundation.config import Settings
from agent_harness.harness import Harness, connect
from agent_harness.parts.memory import Memory
from agent_harness.tools import ToolError, register

__all__ = ["connect", "Harness", "Settings", "Memory", "register", "ToolError"]
__version__ = "0.1.0"
