"""PXP agents: the machine (an LLM through litellm, or the offline baseline), the human proxy, the live human."""
