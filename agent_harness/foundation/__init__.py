"""The foundation: what every layer above uses (settings, who a harness acts for, the
embedding model, JSON values, the JavaScript sandbox). It imports nothing else of the
package except the SUPPLYCHAIN schema (``agent_harness.supplychain``)."""
