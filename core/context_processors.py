from .permissions import Role, user_has_role


def roles(request) -> dict:
    """The roles of the signed-in user, for menus."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"roles": set()}
    return {"roles": {role for role in Role.values if user_has_role(user, role)}}
