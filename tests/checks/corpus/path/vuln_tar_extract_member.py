import tarfile


def restore_backup(archive, dest):
    with tarfile.open(archive, "r:*") as tar:
        for member in tar.getmembers():
            if member.isfile():
                tar.extract(member, dest)
