import mysql.connector


def connection():
    return mysql.connector.connect(user="app", password="app-pass-2024", database="shop")
