USERS = {1: "ada", 2: "grace"}


def get_user(user_id):
    return USERS[user_id]


def user_names():
    return sorted(USERS.values())
