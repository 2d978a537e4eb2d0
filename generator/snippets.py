"""Task snippets (tasks/<task>.<language>.j2): what every language back-end shares.

A snippet defines one Jinja macro per hook point it fills; each takes `w`, the
wrapper context: `w.name`, `w.a.<argument>` (the bound parameter names),
`w.options`, `w.proc`, and in the mpif.h back-end `w.fortran.<argument>` (the
Fortran argument itself, a pointer to the INTEGER handle, where `w.a` names
its C view), for the few snippets with a cheaper way from the Fortran handle.
"""
from dataclasses import dataclass

import jinja2


@dataclass
class WrapperContext:
    """What a snippet sees as `w`: the wrapper's name, arguments and options."""
    name: str
    a: dict
    options: dict
    proc: object
    fortran: dict = None


class Args(dict):
    """Task arguments by name; attribute access for templates (`w.a.count`)."""
    def __getattr__(self, key):
        return self.get(key)


def context_of(plan, use):
    return WrapperContext(plan.proc.name, Args(use.args), Args(use.options), plan.proc)


def add_hooks(module, context, hook_names, hooks):
    """Appends the text of each hook macro the snippet module defines."""
    for hook in hook_names:
        macro = getattr(module, hook, None)
        if macro is not None:
            text = str(macro(context)).strip("\n")
            if text.strip():
                hooks[hook].append(text)


def task_loader(env, catalogue):
    """Snippets live beside their catalogue (tasks/<task>.<language>.j2)."""
    return jinja2.ChoiceLoader([jinja2.FileSystemLoader(str(catalogue.path.parent)), env.loader])
