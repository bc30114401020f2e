"""Keyword arguments shared by the calls that load models: resource limits and front-end options."""

#: Resource limits (docs/limits.md); each is a keyword argument of the loading calls.
LIMITS = ('max_errors', 'max_nesting', 'max_recursion', 'max_operations', 'max_expansions', 'max_value_items',
          'max_work', 'max_string_length', 'max_rank', 'max_volume', 'max_archive_members', 'max_archive_bytes')


def options(limits, **more):
    """The option dict for the binding: the given limits (names checked) and the other options."""
    unknown = [k for k in limits if k not in LIMITS and k != 'strict']
    if unknown:
        raise TypeError('unknown keyword argument(s): {} (limits are: {})'.format(', '.join(sorted(unknown)),
                                                                               ', '.join(LIMITS)))
    result = dict(limits)
    result.update((k, v) for k, v in more.items() if v is not None)
    return result
