from .models import Role
from .services import user_has_role


def roles(request) -> dict:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"roles": set()}
    return {"roles": {role for role in Role.values if user_has_role(user, role)}}
